"""The scheduling framework: session, tiers, statements, priority queues (spec actions-framework §3-6)."""
