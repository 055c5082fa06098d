"""`python -m card_envs ...` is the `card-envs` command."""

from card_envs.cli import main

main()
