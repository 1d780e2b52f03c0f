"""One module per `python -m capacity` subcommand: each has `add_parser(subparsers)` and `run(args)`."""

COMMANDS = ("simulate", "explain", "lint", "replay", "bench", "check", "snapshot", "plan")
