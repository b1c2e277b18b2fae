"""The checks: each a row of one table (`checks.table`) run over the model by the engine."""
