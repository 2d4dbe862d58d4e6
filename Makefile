# casino-auditor. Quick start: `make audit` then `make test` (README).
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp

.PHONY: audit test bench samples clean

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

# Audit every sample log into reports/. Exit 1 from the auditor means "findings were
# raised" (the samples carry planted faults), which is the expected result here; 2 is an error.
audit: $(STAMP)
	$(BIN)/auditor audit sample_logs --profile profiles --out reports --format html,json,csv,sarif,junit \
	  --operator "Casino Ejemplo S.A.C." --hall "Sala principal (muestra simulada)"; \
	  status=$$?; test $$status -le 1

test: $(STAMP)
	$(BIN)/python -m pytest -q -n auto

bench: $(STAMP)
	$(BIN)/python benchmarks/run.py

# Regenerate the committed sample logs (deterministic: same seeds, same files).
samples: $(STAMP)
	$(BIN)/auditor simulate pot-luck-blackjack --rounds 1500 --seed 2026 --faults 0.03 --out sample_logs/pot-luck-blackjack/plb-casino-ejemplo.csv
	$(BIN)/auditor simulate pot-luck-blackjack --rounds 300 --seed 2027 --faults 0.03 --start 2026-11-02 --out sample_logs/pot-luck-blackjack/plb-casino-ejemplo-b.jsonl
	$(BIN)/auditor simulate let-it-ride --rounds 1200 --seed 2026 --faults 0.03 --out sample_logs/let-it-ride/lir-casino-ejemplo.csv
	$(BIN)/auditor simulate triple-shot --rounds 600 --seed 2026 --faults 0.03 --out sample_logs/triple-shot/ts-casino-ejemplo-dia1.csv
	$(BIN)/auditor simulate triple-shot --rounds 600 --seed 2027 --faults 0.03 --start 2026-11-02 \
	  --continue-from sample_logs/triple-shot/ts-casino-ejemplo-dia1.csv --out sample_logs/triple-shot/ts-casino-ejemplo-dia2.jsonl

clean:
	rm -rf $(VENV) reports/*.html reports/*.json reports/*.csv .pytest_cache
