# The RPP Book: build and test from a fresh clone with two commands.
#
#   make book        install everything into .venv, build the web book into _build/html
#   make test        install everything into .venv, run pytest on tests/ and nbval on book/*.ipynb
#   make book-fresh  like `make book`, but delete the execution cache first (re-run every notebook)
#   make page NB=book/03_gaussian_priors.ipynb
#                    build one chapter (plus the bibliography) into _build/page-<name>/_build/html
#   make browser-test
#                    check the built book (run `make book` first) in headless Chromium: every page
#                    of _toc.yml loads with no console error, math typeset, images, links, dropdown
#                    solutions; one screenshot per page in _build/screenshots/ (browser_tests/)
#   make student     write the student edition (solutions removed) of every chapter into student/
#   make clean       remove _build (keeps .venv)
#
# The book build treats every Sphinx warning as an error (-W -n --keep-going).

PYTHON   ?= python3.11
VENV     ?= .venv
BIN      := $(VENV)/bin
STAMP    := $(VENV)/.rpp-book-installed
JB_FLAGS := -W -n --keep-going
CACHE    := _build/.jupyter_cache

# Run everything with the virtual environment first on PATH and its Jupyter kernel spec
# preferred over any user-level "python3" kernel.
RUN := env PATH="$(CURDIR)/$(BIN):$$PATH" JUPYTER_PREFER_ENV_PATH=1 PYTHONNOUSERSITE=1

.PHONY: book book-fresh test page browser-test student clean venv lint

venv: $(STAMP)

# Re-installs only when requirements.txt or pyproject.toml change (or the venv is missing).
$(STAMP): requirements.txt pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --disable-pip-version-check --quiet -r requirements.txt
	$(BIN)/python -m pip install --disable-pip-version-check --quiet --no-deps -e .
	@touch $@

book: $(STAMP)
	$(RUN) $(BIN)/jupyter-book build . $(JB_FLAGS)

# The jupyter-cache only sees code-cell changes, not changes inside rpp/ or the data:
# after editing rpp, run this target (CI always starts from an empty cache).
book-fresh: $(STAMP)
	rm -rf $(CACHE)
	$(RUN) $(BIN)/jupyter-book build . --all $(JB_FLAGS)

# pytest exits 5 when it collects no tests: that is a failure here, never a pass.
test: $(STAMP)
	@$(RUN) $(BIN)/python -m pytest -p no:cacheprovider -n auto tests/ --doctest-modules rpp; rc=$$?; \
	if [ $$rc -eq 5 ]; then echo "ERROR: pytest collected no tests in tests/" >&2; fi; \
	exit $$rc
	@set -- book/*.ipynb; \
	if [ ! -e "$$1" ]; then \
		echo "No notebooks in book/: nbval step skipped."; \
	else \
		$(RUN) $(BIN)/python -m pytest -p no:cacheprovider --nbval-lax --nbval-current-env --nbval-cell-timeout=300 "$$@"; rc=$$?; \
		if [ $$rc -eq 5 ]; then echo "ERROR: nbval collected no notebook cells" >&2; fi; \
		exit $$rc; \
	fi

# One page (a chapter notebook or a .md page) with the bibliography, through a temporary
# table of contents and configuration (only the pages of that toc are read). References to
# labels in *other* chapters are reported as missing in this mode; `make book` resolves them.
page: $(STAMP)
	@test -n "$(NB)" || { echo "usage: make page NB=book/NN_slug.ipynb" >&2; exit 2; }
	@test -f "$(NB)" || { echo "no such file: $(NB)" >&2; exit 2; }
	@name=$$(basename "$(NB)"); name=$${name%.*}; out="_build/page-$$name"; \
	mkdir -p "$$out"; \
	doc="$(NB)"; doc=$${doc#./}; doc=$${doc%.*}; \
	printf 'format: jb-book\nroot: %s\nparts:\n  - caption: Appendices\n    chapters:\n      - file: book/bibliography\n' "$$doc" > "$$out/_toc.yml"; \
	{ cat _config.yml; printf '\nonly_build_toc_files: true\n'; } | sed -e '/^only_build_toc_files: false/d' \
		-e 's#^\( *[A-Za-z_]*: *\)tools/ *$$#\1$(CURDIR)/tools/#' > "$$out/_config.yml"; \
	$(RUN) $(BIN)/jupyter-book build . --toc "$$out/_toc.yml" --config "$$out/_config.yml" \
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

student: $(STAMP)
	$(RUN) $(BIN)/python tools/student_edition.py --out student

clean:
	rm -rf _build

# Lint and type check of the package (configured in pyproject.toml): ruff's pyflakes, bugbear,
# pyupgrade and mccabe (complexity <= 12) rules, the ruff formatter, and mypy.
lint: $(STAMP)
	$(BIN)/ruff check rpp
	$(BIN)/ruff format --check rpp
	$(BIN)/mypy
