# The RPP Book: build and test from a fresh clone with two commands.
#
#   make book        install everything into .venv, build the web book into _build/html, with
#                    every chapter's Jupyter and student editions in _build/html/notebooks/
#   make test        install everything into .venv, run pytest on tests/ (+ doctests of rpp, rpp_book), nbval on
#                    book/*.ipynb, then the notebook checks (notebook_tests/); about 10 minutes
#   make test-slow   the tests marked slow (at scale, arb, deep counterexample searches); .ci/run runs it
#   make test-numerics
#                    nbval on every chapter under each lower numpy SIMD level and 1 or 2 threads
#                    (the rounding-noise detector; .ci/run runs it)
#   make book-fresh  like `make book`, but delete the execution cache first (re-run every notebook)
#   make page NB=book/03_gaussian_priors.ipynb
#                    execute one chapter and build the book around it (the other chapters from
#                    their stored outputs, so every cross-chapter label resolves) into
#                    _build/page-<name>/_build/html
#   make browser-test
#                    check the built book (run `make book` first) in headless Chromium: every page
#                    of _toc.yml loads with no console error, math typeset, images, links, dropdown
#                    solutions; one screenshot per page in _build/screenshots/ (browser_tests/)
#   make pdf         the PDF edition through LaTeX (XeLaTeX, Debian's texlive) into
#                    _build/pdf/rpp-book.pdf, then its checks (pdf_tests/); reuses the execution
#                    cache of `make book`. A later `make book` links it from every page.
#   make assignments the autograded assignment set (nbgrader, from the developers' lock)
#                    into assignments/, then its reference solutions autograded (full marks expected)
#   make student     write the student edition (the Jupyter edition without solutions) into student/
#   make notebooks   write the Jupyter edition and the student edition of every chapter into
#                    _build/html/notebooks/ (shipped with the web book; tools/jupyter_edition.py)
#   make api         rewrite the API appendix (book/api.md) from the package (tools/api_reference.py)
#   make bench       time the benchmark suite (tests/benchmarks/cases.py: the grid, exact to 1e6 atoms,
#                    mixtures to 200 components, the chapters...) and print seconds and seconds per
#                    reference kernel (tools/bench_gate.py); BENCH_ARGS=--no-chapters skips the chapters
#   make bench-check the regression gate (.ci/run): the gated cases against tests/benchmarks/baseline.json,
#                    failing on a case 1.5x slower (relative to the reference kernel) than its baseline
#   make bench-baseline
#                    rewrite tests/benchmarks/baseline.json from this machine, the median of three runs
#                    (commit it for review)
#   make clean       remove _build (keeps .venv)
#
# The book build treats every Sphinx warning as an error (-W -n --keep-going).

PYTHON   ?= python3
VENV     ?= .venv
BIN      := $(VENV)/bin
STAMP    := $(VENV)/.rpp-book-installed
JB_FLAGS := -W -n --keep-going
CACHE    := _build/.jupyter_cache
# Set UV= (empty) to force pip even where uv is installed.
UV       ?= $(shell command -v uv 2>/dev/null)

# Run everything with the virtual environment first on PATH and its Jupyter kernel spec
# preferred over any user-level "python3" kernel.
RUN := env PATH="$(CURDIR)/$(BIN):$$PATH" JUPYTER_PREFER_ENV_PATH=1 PYTHONNOUSERSITE=1
# Book builds execute the notebooks: their kernels must use Jupyter's inline matplotlib backend.
# An MPLBACKEND (e.g. Agg, exported by .ci/run for the tests) would reach the kernels and every
# figure that a cell does not display explicitly would silently vanish from the book.
BOOK_RUN := env -u MPLBACKEND PATH="$(CURDIR)/$(BIN):$$PATH" JUPYTER_PREFER_ENV_PATH=1 PYTHONNOUSERSITE=1

.PHONY: assignments api bench bench-check bench-baseline lock book book-fresh test test-slow test-numerics page browser-test pdf student notebooks clean venv check-python lint

venv: $(STAMP)

# The locks resolve for CPython 3.11.7 and newer (tools/lock.py's PYTHON; CI tests 3.11, 3.12 and
# 3.13); older Pythons stop here, before pip fails on a pin they cannot install (Debian 12's
# python3 is 3.11.2: soupsieve's pinned release needs 3.11.5).
check-python:
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11, 7) else 1)' 2>/dev/null || { \
		echo "ERROR: '$(PYTHON)' is not Python >= 3.11.7 (found: $$($(PYTHON) --version 2>&1)): the locks" \
		     "need it. Install a newer Python (e.g. 'uv python install 3.12', pyenv, or your system's" \
		     "python3.12 package) and run e.g. 'make test PYTHON=python3.12'." >&2; exit 2; }

# Re-installs only when a lock or pyproject.toml changes (or the venv is missing). Both locks:
# requirements-dev.txt (the developers' tools) includes requirements.txt (the reader's
# environment); every file is checked against its SHA-256 (--require-hashes). With uv on the
# PATH, uv creates the venv and installs the same locks (faster); otherwise python -m venv, then
# the lock's pip (pinned in both locks, installed first), then the locks.
$(STAMP): requirements.txt requirements-dev.txt pyproject.toml support/pyproject.toml | check-python
ifneq ($(UV),)
	@test -x $(BIN)/python || $(UV) venv --quiet --seed --python $(PYTHON) $(VENV)
	$(UV) pip install --quiet --python $(BIN)/python --require-hashes -r requirements-dev.txt
	$(UV) pip install --quiet --python $(BIN)/python --no-deps -e . -e ./support
else
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	@# the lock's pip first: the one `python -m venv` bundles (23.2.1 on 3.11.7) is too old
	$(BIN)/python tools/lock.py --pin pip > $(VENV)/pip-lock.txt
	$(BIN)/python -m pip install --disable-pip-version-check --quiet --require-hashes -r $(VENV)/pip-lock.txt
	$(BIN)/python -m pip install --disable-pip-version-check --quiet --require-hashes -r requirements-dev.txt
	$(BIN)/python -m pip install --disable-pip-version-check --quiet --no-deps -e . -e ./support
endif
	@touch $@

# Regenerates requirements.txt and requirements-dev.txt from pyproject.toml with uv, keeping the
# current versions where it can (UPGRADE=1: the newest allowed); tools/lock.py.
lock:
	$(PYTHON) tools/lock.py $(if $(UPGRADE),--upgrade)

# The web book, then the chapters' notebooks next to its pages (the download menus link them).
book: $(STAMP)
	$(BOOK_RUN) $(BIN)/jupyter-book build . $(JB_FLAGS)
	$(WRITE_NOTEBOOKS)

# The jupyter-cache only sees code-cell changes, not changes inside rpp/ or the data:
# after editing rpp, run this target (CI always starts from an empty cache).
book-fresh: $(STAMP)
	rm -rf $(CACHE)
	$(BOOK_RUN) $(BIN)/jupyter-book build . --all $(JB_FLAGS)
	$(WRITE_NOTEBOOKS)

# pytest exits 5 when it collects no tests: that is a failure here, never a pass.
# Three phases, about 10 minutes on 2 cores: (1) the unit, property and doctests (tests/ without
# the tests marked slow, and the doctests of rpp and rpp_book); (2) nbval on every chapter (two chapters at a
# time, each whole on one worker: --dist loadfile); (3) the notebook
# checks of notebook_tests/ (the launch path, the student editions in fresh kernels). The tests
# marked slow are `make test-slow` (.ci/run runs both).
test: $(STAMP)
	@$(RUN) $(BIN)/python -m pytest -p no:cacheprovider -n auto -m "not slow" tests/ --doctest-modules rpp support/rpp_book; rc=$$?; \
	if [ $$rc -eq 5 ]; then echo "ERROR: pytest collected no tests in tests/" >&2; fi; \
	exit $$rc
	@set -- book/*.ipynb; \
	if [ ! -e "$$1" ]; then \
		echo "No notebooks in book/: nbval step skipped."; \
	else \
		$(RUN) $(BIN)/python -m pytest -p no:cacheprovider -p tools.strict_kernel.nbval_plugin \
			-n 2 --dist loadfile --nbval-lax --nbval-current-env --nbval-cell-timeout=300 "$$@"; rc=$$?; \
		if [ $$rc -eq 5 ]; then echo "ERROR: nbval collected no notebook cells" >&2; fi; \
		exit $$rc; \
	fi
	@$(RUN) $(BIN)/python -m pytest -p no:cacheprovider -n auto -m "notebook and not slow" notebook_tests/; rc=$$?; \
	if [ $$rc -eq 5 ]; then echo "ERROR: pytest collected no tests in notebook_tests/" >&2; fi; \
	exit $$rc

# The at-scale tier (tests marked slow: a million atoms, arb at high precision, the deep searches
# of tests/claims/, every Jupyter-edition chapter in full from the class-room folder); minutes
# each. .ci/run runs it after `make test`; it prints its 25 slowest tests (where to cut CI time).
test-slow: $(STAMP)
	@$(RUN) $(BIN)/python -m pytest -p no:cacheprovider -n auto -m "slow" --durations=25 tests/ notebook_tests/; rc=$$?; \
	if [ $$rc -eq 5 ]; then echo "ERROR: pytest collected no slow tests in tests/" >&2; fi; \
	exit $$rc

# The rounding-noise detector (.ci/run runs it after `make test`): nbval on every chapter again,
# each under one lower numpy SIMD dispatch level of this CPU, the chapters shared out among the
# levels, with one BLAS/OpenMP thread or two (tools/numerics_matrix.py; `--list` prints the passes,
# `--all` runs every chapter under every level). As in `make test`, numpy's RuntimeWarnings
# (overflow, divide by zero, invalid value) in chapter cells are errors (tools/strict_kernel/): a
# cell silences one only with np.errstate and a comment saying why.
test-numerics: $(STAMP)
	@$(RUN) $(BIN)/python tools/numerics_matrix.py

# One page (a chapter notebook or a .md page): the whole book is read, so labels of the other
# chapters resolve with their numbers and warnings stay errors, but only that page is executed
# (the other chapters show their stored outputs; tools/page_config.py writes the configuration).
# The result is a complete web book in _build/page-<name>/_build/html.
page: $(STAMP)
	@test -n "$(NB)" || { echo "usage: make page NB=book/NN_slug.ipynb" >&2; exit 2; }
	@test -f "$(NB)" || { echo "no such file: $(NB)" >&2; exit 2; }
	@name=$$(basename "$(NB)"); name=$${name%.*}; out="_build/page-$$name"; \
	doc="$(NB)"; doc=$${doc#./}; doc=$${doc%.*}; \
	$(RUN) $(BIN)/python tools/page_config.py "$(NB)" "$$out/_config.yml" && \
	$(BOOK_RUN) $(BIN)/jupyter-book build . --config "$$out/_config.yml" \
		--path-output "$$out" $(JB_FLAGS) && \
	echo "Page built: $$out/_build/html/$$doc.html"

# Debian's packages `chromium` and `chromium-driver` (.ci/run installs them when missing).
CHROMIUM     ?= /usr/bin/chromium
CHROMEDRIVER ?= /usr/bin/chromedriver

# Tests the HTML that is in _build/html (it does not build): run `make book` first.
# browser_tests/ is outside tests/, so `make test` never collects it.
browser-test: $(STAMP)
	@test -f _build/html/index.html || { echo "ERROR: no built book in _build/html: run 'make book' first" >&2; exit 2; }
	@test -x "$(CHROMIUM)" -a -x "$(CHROMEDRIVER)" || { echo "ERROR: $(CHROMIUM) or $(CHROMEDRIVER) missing:" \
		"apt-get install chromium chromium-driver (Debian), or set CHROMIUM=... CHROMEDRIVER=..." >&2; exit 2; }
	@$(RUN) RPP_CHROMIUM="$(CHROMIUM)" RPP_CHROMEDRIVER="$(CHROMEDRIVER)" \
		$(BIN)/python -m pytest -p no:cacheprovider browser_tests/; rc=$$?; \
	if [ $$rc -eq 5 ]; then echo "ERROR: pytest collected no tests in browser_tests/" >&2; fi; \
	exit $$rc

# The PDF edition: jupyter-book's pdflatex builder (Sphinx's LaTeX writer, `make all-pdf` in
# _build/latex with latexmk and XeLaTeX), warnings as errors like the web book. The structure
# (front matter, chapters 1..N, appendices) and the MathJax macros come from tools/book_latex.py.
# Debian packages: texlive-xetex latexmk texlive-latex-extra texlive-fonts-recommended
# fonts-freefont-otf poppler-utils
# (.ci/run installs them when missing).
PDF_OUT := _build/pdf/rpp-book.pdf
pdf: $(STAMP)
	@for tool in xelatex latexmk pdftotext; do command -v $$tool >/dev/null || { \
		echo "ERROR: $$tool missing: apt-get install texlive-xetex latexmk texlive-latex-extra" \
		"texlive-fonts-recommended" \
		"fonts-freefont-otf poppler-utils (Debian)" >&2; exit 2; }; done
	@# latexmk would trust the state of a failed earlier run ("Nothing to do"): start it afresh
	rm -f _build/latex/rpp-book.pdf _build/latex/rpp-book.fdb_latexmk _build/latex/rpp-book.aux
	$(BOOK_RUN) $(BIN)/jupyter-book build . --builder pdflatex $(JB_FLAGS)
	@test -s _build/latex/rpp-book.pdf || { echo "ERROR: LaTeX wrote no _build/latex/rpp-book.pdf" >&2; exit 1; }
	@rm -f $(PDF_OUT)
	@$(RUN) $(BIN)/python -m pytest -p no:cacheprovider -q pdf_tests/; rc=$$?; \
	if [ $$rc -eq 5 ]; then echo "ERROR: pytest collected no tests in pdf_tests/" >&2; fi; \
	exit $$rc
	@# only a PDF that passed its checks becomes the edition the web book links
	@mkdir -p $(dir $(PDF_OUT)) && cp _build/latex/rpp-book.pdf $(PDF_OUT)
	@echo "PDF edition: $(PDF_OUT) ($$(pdfinfo $(PDF_OUT) | sed -n 's/^Pages: *//p') pages); run \`make book\` to link it from the web book"

student: $(STAMP)
	$(BOOK_RUN) $(BIN)/python tools/jupyter_edition.py --student --out student

# The assignment set (tools/assignments.py): a course folder for nbgrader in assignments/ (the
# source notebook with the book's solutions and the hidden judges, release/ for the students,
# gradebook.db), then nbgrader's autograder on the reference solutions (why nbgrader and not
# otter-grader: tools/assignments.py). nbgrader is in the developers' lock (requirements-dev.txt).
assignments: $(STAMP)
	$(BOOK_RUN) $(BIN)/python tools/assignments.py --out assignments --check

# The Jupyter edition (MyST rewritten for Jupyter/Colab, the web book's numbers read from Sphinx's
# environment, a first cell that installs rpp from this commit) and the student edition, shipped
# with the web book: _build/html/notebooks/NN_slug.ipynb and _build/html/notebooks/student/
# (`make book` writes them too: each chapter's download menu links both; the preface's class-room
# steps open them, notebook_tests/test_classroom.py follows those steps).
NOTEBOOKS_OUT := _build/html/notebooks
define WRITE_NOTEBOOKS
$(BOOK_RUN) $(BIN)/python tools/jupyter_edition.py --out $(NOTEBOOKS_OUT)
$(BOOK_RUN) $(BIN)/python tools/jupyter_edition.py --student --out $(NOTEBOOKS_OUT)/student
endef

notebooks: $(STAMP)
	$(WRITE_NOTEBOOKS)

# The API appendix, book/api.md, generated from rpp's namespaces and the import-linter layers
# (tools/api_reference.py; tests/book/test_api_reference.py fails when the page is out of date).
api: $(STAMP)
	$(RUN) $(BIN)/python tools/api_reference.py

# The benchmark suite and its regression gate (issue #38; tools/bench_gate.py).
BASELINE := tests/benchmarks/baseline.json
bench: $(STAMP)
	$(RUN) $(BIN)/python tools/bench_gate.py $(BENCH_ARGS)

bench-check: $(STAMP)
	$(RUN) $(BIN)/python tools/bench_gate.py --gated --check $(BASELINE)

bench-baseline: $(STAMP)
	$(RUN) $(BIN)/python tools/bench_gate.py --gated --write-baseline $(BASELINE)

clean:
	rm -rf _build

# Lint and type check (configured in pyproject.toml): ruff's pyflakes, bugbear, pyupgrade, mccabe
# (complexity <= 12), pydocstyle (numpy convention; the package only), isort, unused-arguments,
# ruff-specific and numpy rules, and the ruff formatter, on the package and on every Python
# directory beside it (the tests, the tools, the notebook, browser and PDF checks); numpydoc's
# validation of the public docstrings, mypy (check_untyped_defs), import-linter's contracts (the
# layers, rpp_book never imported by the library, no cycles), and tests/test_layers.py (the layers
# again, with importlib strings and function-level imports; no public function annotated `-> Any`).
LINT_DIRS = rpp support tests tools notebook_tests browser_tests pdf_tests
lint: $(STAMP)
	$(BIN)/ruff check $(LINT_DIRS)
	$(BIN)/ruff format --check $(LINT_DIRS)
	find rpp support/rpp_book -name '*.py' | sort | xargs $(BIN)/python -m numpydoc lint
	$(BIN)/mypy
	$(BIN)/lint-imports
	$(RUN) $(BIN)/python -m pytest -p no:cacheprovider -q tests/test_layers.py
