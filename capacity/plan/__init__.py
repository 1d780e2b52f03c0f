"""Capacity planning: search queue settings against a workload and goals, one replay per candidate.

`python -m capacity plan SPEC.yaml` reads a spec (`spec`), builds the starting cluster and workload
once (`base`), generates candidates (`search`: grid, random or an Optuna sampler), checks each against
the spec's constraints and Volcano's queue admission webhook (`capacity.core.webhook`), replays each
accepted one with `capacity.simulation.sim` (`figures`), streams every row to a results file (`results`, CSV or
Parquet) from local processes or Ray tasks (`backends`), and reports the candidates meeting every
goal, the Pareto front and the best candidate as apply-ready Queue YAML (`report`). `run.run_plan`
ties these together for the CLI and the dashboard's Plan page.
"""
