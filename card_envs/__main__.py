"""`python -m card_envs ...` is the `card-envs` command."""

from card_envs.cli import main

if __name__ == "__main__":  # importing it (as the API reference does) runs nothing
    main()
