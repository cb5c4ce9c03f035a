"""Private kernels every layer of :mod:`rpp` may use.

:mod:`~rpp._lib.numerics` (log-sum-exp, quadrature, monotone root finding, the round-off guard), :mod:`~rpp._lib.validation` (the input
checks) and :mod:`~rpp._lib.accurate` (error-free transformations, accurate logs).
"""
