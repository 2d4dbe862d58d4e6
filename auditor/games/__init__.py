"""Game-specific logic (hand evaluators and settlement rules) used by the audit checks."""
