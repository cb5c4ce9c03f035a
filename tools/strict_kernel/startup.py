# IPython startup file of the test kernels only (tools/strict_kernel/nbval_plugin.py copies it
# into a temporary IPYTHONDIR for nbval; `make book` never loads it, so readers see the same
# book). numpy's floating-point RuntimeWarnings become errors: a chapter cell that divides by
# zero, overflows or produces an invalid value fails the test instead of printing a warning
# whose verdict may depend on rounding noise (a density of -2e-17 taken to a negative power).
# A cell that means it silences that one warning where it happens, with a comment saying why
# it is harmless, e.g.
#     with np.errstate(divide="ignore"):  # log(0) = -inf is the value wanted for empty atoms
# (tests/book/test_book.py checks that every such silencing names one warning and gives a reason).
import warnings as _rpp_warnings

_rpp_warnings.filterwarnings(
    "error",
    message=r"(overflow|divide by zero|invalid value) encountered",
    category=RuntimeWarning,
)
del _rpp_warnings
