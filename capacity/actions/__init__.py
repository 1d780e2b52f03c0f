"""Scheduler actions, run in the configured order each cycle (spec actions-framework §7)."""
