"""All-seat self-play PPO: every seat's decisions train one shared network (`train`)."""
