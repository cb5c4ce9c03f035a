r"""Secure noise: exact samples of the *rounded* Gaussian and Laplace mechanisms from OS entropy.

**The problem.**  ``x + rng.normal(0, theta)`` with numpy has two flaws for a real release.
(1) numpy's PCG64 is not a cryptographic generator, and a seed that is printed, guessed or
reused lets anyone subtract the noise.  (2) Floating-point noise is attackable even with
perfect random bits (Mironov 2012, "On significance of the least significant bits for
differential privacy", CCS): the set of floats that ``fl(x + Z)`` can take depends on ``x``
(numpy's Laplace sampler ``b log(2U)`` with ``U`` a multiple of :math:`2^{-53}` has a finite,
gappy support), so one observed output can rule a secret in or out with certainty -- an
infinite Rényi divergence, whatever the calibration says.

**The design (exact sampling of the rounded continuous mechanism).**  For a grid
:math:`g = 2^{e}` and the continuous mechanism :math:`M(x) = x + N`,
:math:`N \sim \mathcal N(0, \theta^2)` or :math:`\mathrm{Laplace}(0, b)` with CDF :math:`F`,
the release is

.. math::

    R(x) &= g\,K, \qquad K = \operatorname{round}\bigl((x + N)/g\bigr),\\
    P(K = k \mid x) &= F\Bigl(\frac{(k+\frac12)g - x}{\theta}\Bigr)
                    - F\Bigl(\frac{(k-\frac12)g - x}{\theta}\Bigr),

with ``x`` taken as the exact dyadic rational its float stores.  :math:`K` is drawn by
*inversion*: it is the unique integer with :math:`F(t_{k-1}) \le U < F(t_k)`,
:math:`t_k = ((k+\frac12)g - x)/\theta`, for :math:`U` uniform on :math:`[0, 1)`.  ``U`` is
revealed lazily, 64 bits at a time, as a dyadic interval :math:`[a 2^{-m}, (a+1) 2^{-m})`;
each :math:`F(t_k)` is enclosed by arb's rigorous ball arithmetic (python-flint: ``erfc``
for the Gaussian, ``exp`` for the Laplace, the exact integer numerator
:math:`(2k+1)g/2 - x` turned into a ball, division by the float ``theta`` rounded outwards).
A comparison ``U < F(t_k)`` is decided only when the two intervals are disjoint; otherwise
64 more bits of ``U`` are drawn and the precision is raised by 64 bits.  :math:`F(t_k)` is
irrational unless :math:`t_k = 0` (then it is exactly 1/2, handled exactly), so every
comparison ends with probability 1 (after :math:`m` bits it is still open with probability
about :math:`2^{1-m}`; past :data:`MAX_BITS` bits the sampler raises instead of guessing).
A float guess of :math:`K` (``scipy.special.ndtri``) only chooses where the search starts;
galloping and bisection over the rigorous comparisons find :math:`K`, so the drawn ``K``
has *exactly* the law above (given uniform bits).  Many draws of one value (simulations)
share a table of integer bounds :math:`L_j \le 2^{64} F(t_j) \le H_j` from the same balls: a
draw whose first 64 bits ``a`` satisfy :math:`H_{j-1} \le a < L_j` has :math:`K = j` proved
without a search; any other draw is searched as above with the same ``U``.

**Why nothing is charged.**  :math:`R(x)` is a deterministic function of :math:`M(x)` applied
to the output -- post-processing.  For every prior :math:`P(x \mid s)` the law of :math:`R`
given the secret is the push-forward of the law of :math:`M` given the secret under
:math:`y \mapsto g\,\mathrm{round}(y/g)`, and the data-processing inequality of the Rényi
divergence (van Erven & Harremoës 2014, Thm. 9) gives
:math:`D_\alpha(R \mid s_i \,\|\, R \mid s_j) \le D_\alpha(M \mid s_i \,\|\, M \mid s_j)`, for
every :math:`\alpha`, every pair and every prior.  So any :math:`(\alpha, \varepsilon)`-RPP
calibration of the continuous mechanism holds unchanged for :math:`R`; the grid costs only
accuracy.  The output is a multiple of :math:`g` (exactly ``k * g`` as a float while
:math:`|k| < 2^{53}`; beyond, the float rounding of ``k * g`` is again a function of ``k``
alone, still a multiple of ``g``), every grid point has positive probability for every ``x``,
and the law depends on ``x`` only through the continuous mechanism: the floating-point
attack has nothing to read.  This argument needs the sampled law to be exact, which is why
the comparisons are rigorous and not floating-point.

**The grid.**  Default :func:`default_grid`: the largest power of two :math:`\le` scale
:math:`/2^{10}` (so :math:`g \in (\text{scale}/2^{11}, \text{scale}/2^{10}]`); it depends on the
public scale only, never on the data.  Rounding moves the output by at most :math:`g/2`, so
the root-mean-square error is at most :math:`\sqrt{\mathrm{Var}\,N} + g/2` (Minkowski), i.e.
at most a relative :math:`2^{-11}\,\text{scale}/\sqrt{\mathrm{Var}\,N}` more; by Sheppard's
correction the mean squared error is about :math:`\mathrm{Var}\,N + g^2/12` (an estimate,
relative :math:`\approx 8\cdot 10^{-8}` for the Gaussian at the default grid).

**Randomness.**  ``rng=None`` (the default) reads the operating system's CSPRNG through
``os.urandom``; a ``random.SystemRandom`` may be passed explicitly.  A numpy
``Generator`` or an integer seed is refused (ValueError): reproducible noise can be removed by
anyone who learns the seed.  A reproducible stream exists only through the keyword
``insecure_seed=`` (numpy PCG64 bits through the same exact algorithm); it issues an
:class:`InsecureNoiseWarning`, and objects that record releases flag it as
``UNSAFE: reproducible noise``.  Use it for teaching and tests, never for a real release.

**Provenance.**  Every release path of ``rpp`` (:func:`secure_gaussian`, :func:`secure_laplace`,
``GaussianNoise.release``, ``LaplaceNoise.release``, ``ReleaseBudget.release``) returns a
:class:`Release`: the noisy value with the facts of how it was drawn (noise family, scale, grid,
entropy source, whether it is reproducible, optionally the calibration it used), which
:func:`rpp.accounting.release_report` reads instead of taking the caller's word.

**Limits.**  The guarantee is for the float ``x`` as passed (the query as computed).  The
running time and the number of random bits depend on ``U`` and ``x`` (about two comparisons
per draw; more near a boundary): this module does not defend against timing side channels.
The security of ``os.urandom`` is computational, as for every practical sampler.

**Alternative not taken.**  A discrete Gaussian on :math:`g\mathbb Z` (Canonne, Kamath & Steinke
2020) is sampled exactly with rational arithmetic but is a *different* mechanism: its RPP
accounting for priors would need a proof of its own (the divergence of the prior mixed with
a discrete kernel, e.g. bounded by the continuous one plus a grid term via a coupling of the
two kernels); rounding the continuous mechanism needs none.

Needs python-flint (a dependency of ``rpp-book``), imported when the first sample is drawn.
"""

from __future__ import annotations

import dataclasses
import math
import os
import random
import warnings
from fractions import Fraction
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from ._lib import validation as checks
from ._lib.arb import LOCK as ARB_LOCK

__all__ = [
    "Release",
    "secure_gaussian",
    "secure_laplace",
    "default_grid",
    "InsecureNoiseWarning",
    "MAX_BITS",
    "GRID_SHIFT",
]

#: The default grid is the largest power of two ``<= scale / 2**GRID_SHIFT``.
GRID_SHIFT = 10
#: A comparison still open after this many uniform bits raises RuntimeError (probability ~ 2**-16000).
MAX_BITS = 1 << 14
_MIN_GRID_SHIFT = 60  # the grid may not be finer than scale / 2**60
_SCALE_RANGE = (1e-300, 1e300)
_CHUNK = 64  # uniform bits per refinement
_GUARD = 64  # arb working precision beyond the bits of U
_TABLE_MIN = 256  # fewer draws of one value than this (or than half the table) never build a table

_INSECURE_HINT = (
    "for a reproducible teaching example or a test pass insecure_seed=<int> by name; the noise is then "
    "reproducible by anyone who knows the seed and is flagged 'UNSAFE: reproducible noise'"
)


class InsecureNoiseWarning(UserWarning):
    """Issued whenever noise is drawn from ``insecure_seed`` (reproducible, not for a real release)."""


# ---------------------------------------------------------------------------------------------
# sources of uniform bits


class _OSBits:
    """The operating system's CSPRNG (``os.urandom``, looked up at every call)."""

    unsafe = False

    def take(self, nbytes: int) -> bytes:
        return os.urandom(nbytes)


class _SystemRandomBits:
    """A caller-supplied ``random.SystemRandom`` (also OS entropy)."""

    unsafe = False

    def __init__(self, rng: random.SystemRandom) -> None:
        self._rng = rng

    def take(self, nbytes: int) -> bytes:
        return self._rng.getrandbits(8 * nbytes).to_bytes(nbytes, "big")


class _SeededBits:
    """Reproducible bits from numpy's PCG64 seeded with ``insecure_seed`` (NOT secure)."""

    unsafe = True

    def __init__(self, seed: Any) -> None:
        self._gen = np.random.Generator(np.random.PCG64(seed))

    def take(self, nbytes: int) -> bytes:
        return self._gen.bytes(nbytes)


def _is_int(value: Any) -> bool:
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


def _check_seed(seed: Any) -> Any:
    """``insecure_seed``: an int >= 0 or a tuple of them (numpy SeedSequence entropy)."""
    parts = seed if isinstance(seed, tuple) else (seed,)
    if not parts or not all(_is_int(p) for p in parts):
        raise TypeError("insecure_seed must be an int >= 0 or a tuple of ints >= 0")
    if any(p < 0 for p in parts):
        raise ValueError("insecure_seed must be an int >= 0 or a tuple of ints >= 0, got a negative entry")
    return int(parts[0]) if not isinstance(seed, tuple) else tuple(int(p) for p in parts)


def bit_source(
    rng: Any, insecure_seed: Any, stacklevel: int = 2, *, warn: bool = True
) -> _OSBits | _SystemRandomBits | _SeededBits:
    """Return the bit source: OS entropy unless ``insecure_seed`` is given; refuses numpy Generators and int seeds.

    ``stacklevel`` is that of ``warnings.warn`` called here (2: the caller of ``bit_source``).
    Every release path of ``rpp`` checks its ``rng`` / ``insecure_seed`` here; ``warn=False`` only
    validates (an object that records the flag and warns at each draw).
    """
    if insecure_seed is not None:
        if rng is not None:
            raise ValueError("pass either rng (secure) or insecure_seed (reproducible, unsafe), not both")
        src = _SeededBits(_check_seed(insecure_seed))
        if warn:
            warnings.warn(
                "insecure_seed: UNSAFE: reproducible noise -- anyone who knows or guesses the seed can subtract "
                "it; never use insecure_seed for a real release",
                InsecureNoiseWarning,
                stacklevel=stacklevel,
            )
        return src
    if rng is None:
        return _OSBits()
    if isinstance(rng, random.SystemRandom):
        return _SystemRandomBits(rng)
    if isinstance(rng, (np.random.Generator, np.random.RandomState, np.random.BitGenerator)) or _is_int(rng):
        raise ValueError(
            f"rng must be None (the operating system's entropy) or a random.SystemRandom, got a "
            f"{type(rng).__name__}: a numpy generator or an integer seed is not a cryptographic source and "
            f"makes the noise removable by whoever learns the seed; {_INSECURE_HINT}"
        )
    raise TypeError(f"rng must be None or a random.SystemRandom, got a {type(rng).__name__}")


# ---------------------------------------------------------------------------------------------
# the record of a release

_FAMILIES = ("gaussian", "laplace")
_SOURCES = ("os", "insecure_seed")


def _calibration_summary(cal: Any) -> str:
    """Return the public parameters of an attached calibration, for the repr (no prior, no detail)."""
    word = "guaranteed" if bool(cal.guaranteed) else "not guaranteed"
    return (
        f"<Calibration {cal.noise}, scale={float(cal.scale)!r}, alpha={float(cal.alpha):g}, "
        f"epsilon={float(cal.epsilon):g}, {word}>"
    )


def _check_calibration(cal: Any, family: str, scale: float) -> None:
    """``calibration`` must be one Calibration (scalar) of this family and this scale, else a ValueError naming it."""
    names = ("scale", "noise", "guaranteed", "within_budget", "alpha", "epsilon")
    if not all(hasattr(cal, n) for n in names) or not isinstance(cal.noise, str):
        raise TypeError(f"calibration must be None or an rpp.Calibration, got a {type(cal).__name__}")
    if any(np.ndim(getattr(cal, n)) for n in ("scale", "alpha", "epsilon", "guaranteed", "within_budget")):
        raise ValueError(
            "calibration must be the calibration of one (alpha, epsilon), with a single scale; "
            "a calibration over a grid of alpha or epsilon has an array of scales"
        )
    if cal.noise != family:
        raise ValueError(
            f"calibration is for {cal.noise!r} noise, but the release draws {family!r} noise: "
            "the calibration must be the one whose noise was used"
        )
    if float(cal.scale) != scale:
        raise ValueError(
            f"calibration has scale {float(cal.scale)!r}, but the release used scale {scale!r}: "
            "the calibration must be the one whose scale was used (pass calibration.scale)"
        )


@dataclasses.dataclass(frozen=True, eq=False, repr=False)
class Release:
    r"""A released (noisy) value with its provenance: how the noise was drawn, from what.

    Returned by every release path of ``rpp`` (:func:`~rpp.sampling.secure_gaussian`, :func:`~rpp.sampling.secure_laplace`,
    ``rpp.GaussianNoise.release``, ``rpp.LaplaceNoise.release``,
    :meth:`rpp.accounting.ReleaseBudget.release`) and read by
    :func:`rpp.accounting.release_report`, which derives from it what the library knows
    (the noise, its scale and grid, its source, the calibration) instead of taking the
    publisher's word.

    **Nothing confidential.**  The record holds the noisy output :math:`g\,\mathrm{round}((x + N)/g)`
    only, never the query value :math:`x`; its repr shows that output and the metadata.  At
    ``scale = 0`` (no noise) the output *is* the query value: such a record is as public as the
    publisher makes it.

    **Not a number.**  A record does not convert itself (no ``float(record)``, no
    ``np.asarray(record)``, no arithmetic): use ``value``.  Passing a record where a number
    is expected is a TypeError, not a silent loss of its provenance.

    **Frozen.**  Fields cannot be reassigned, and an array ``value`` is a read-only copy.  The
    record is evidence as good as the code that made it: built by hand it proves nothing, so
    build it with the release functions.  The constructor checks that the fields agree with each
    other (``reproducible`` is ``source == "insecure_seed"``; a calibration of the same family
    and scale).

    Attributes
    ----------
    value : float or ndarray
        The released (noisy) value(s), multiples of ``grid``; the shape of the query value.
    family : str
        The noise family: :math:`N(0, \theta^2)` or Laplace(:math:`b`).
    scale : float
        The noise scale (:math:`\theta` or :math:`b`), ``>= 0``; 0 means no noise was added.
    grid : float or None
        The output grid :math:`g` (a power of two), ``None`` when no noise was added.
    source : str
        Where the uniform bits came from: the operating system's entropy (``os.urandom`` or a
        ``random.SystemRandom``), or numpy's PCG64 seeded with ``insecure_seed`` (reproducible).
    reproducible : bool
        Whether anyone who knows the seed can regenerate the noise (``source == "insecure_seed"``):
        such a release is **not private**, whatever its calibration.
    calibration : rpp.calibration.Calibration or None
        The calibration whose scale was used, if the caller attached it; its ``noise`` and
        ``scale`` equal ``family`` and ``scale`` (checked).

    Raises
    ------
    TypeError
        If a field has the wrong type (``reproducible`` not a bool, ``calibration`` not a
        Calibration).
    ValueError
        If ``value`` is not finite, ``family`` or ``source`` is not one of the allowed names,
        ``scale`` is negative or not finite, ``grid`` is not a power of two in
        ``[scale / 2**60, scale]`` (``None`` at ``scale = 0`` only), ``reproducible`` disagrees
        with ``source``, or ``calibration`` is of another family or scale.  No message contains
        ``value``.

    Examples
    --------
    >>> r = secure_gaussian(1.0, scale=2.0)  # OS entropy: the value is never printed here
    >>> r.family, r.scale, r.grid == default_grid(2.0), r.source, r.reproducible
    ('gaussian', 2.0, True, 'os', False)
    >>> isinstance(r.value, float) and (r.value / r.grid).is_integer()
    True
    >>> r.scale = 1.0
    Traceback (most recent call last):
    ...
    dataclasses.FrozenInstanceError: cannot assign to field 'scale'
    >>> float(r)
    Traceback (most recent call last):
    ...
    TypeError: float() argument must be a string or a real number, not 'Release'
    """

    value: float | np.ndarray
    family: str
    scale: float
    grid: float | None
    source: str
    reproducible: bool
    calibration: Any = None

    def __post_init__(self) -> None:
        """Check that the fields agree; freeze an array value (a read-only copy)."""
        x = checks.finite("value", self.value)
        if x.ndim:
            x = x.copy()
            x.setflags(write=False)
            object.__setattr__(self, "value", x)
        else:
            object.__setattr__(self, "value", float(x))
        checks.one_of("family", self.family, _FAMILIES)
        checks.one_of("source", self.source, _SOURCES)
        reproducible = checks.flag("reproducible", self.reproducible)
        if reproducible != (self.source == "insecure_seed"):
            raise ValueError("reproducible must be True exactly when source is 'insecure_seed'")
        if np.ndim(self.scale):
            raise ValueError("scale must be a single number >= 0")
        scale = float(checks.positive("scale", self.scale, allow_zero=True))
        object.__setattr__(self, "scale", scale)
        object.__setattr__(self, "reproducible", reproducible)
        if scale == 0:
            if self.grid is not None:
                raise ValueError("grid must be None when scale is 0 (no noise, no rounding)")
        elif self.grid is None:
            raise ValueError("grid must be the output grid the release was rounded to (None only at scale 0)")
        else:
            object.__setattr__(self, "grid", _grid(self.grid, _scale(scale))[0])
        if self.calibration is not None:
            _check_calibration(self.calibration, self.family, scale)

    def __repr__(self) -> str:
        """Return the noisy value and the metadata (never anything else)."""
        cal = "None" if self.calibration is None else _calibration_summary(self.calibration)
        return (
            f"Release(value={self.value!r}, family={self.family!r}, scale={self.scale!r}, grid={self.grid!r}, "
            f"source={self.source!r}, reproducible={self.reproducible!r}, calibration={cal})"
        )

    def __array__(self, *args: Any, **kwargs: Any) -> np.ndarray:
        """Refuse the conversion to an array: a record is not a number, use ``value``."""
        raise TypeError("a Release is a record, not a number: use its .value")


# ---------------------------------------------------------------------------------------------
# arguments


def _scale(scale: Any) -> float:
    if isinstance(scale, (bool, np.bool_)) or not isinstance(scale, (int, float, np.integer, np.floating)):
        if not (isinstance(scale, np.ndarray) and scale.ndim == 0 and scale.dtype.kind in "iuf"):
            raise TypeError(f"scale must be a real number, got a {type(scale).__name__}")
    s = float(scale)
    lo, hi = _SCALE_RANGE
    if not (math.isfinite(s) and lo <= s <= hi):
        raise ValueError(f"scale must be a finite number in [{lo:g}, {hi:g}]")
    return s


def default_grid(scale: float) -> float:
    r"""Return the default grid: the largest power of two :math:`\le` ``scale / 2**GRID_SHIFT`` (``GRID_SHIFT = 10``).

    Parameters
    ----------
    scale : float
        Noise scale (:math:`\theta` or :math:`b`), in ``[1e-300, 1e300]``.

    Returns
    -------
    float
        :math:`g = 2^{\lfloor \log_2 \text{scale} \rfloor - 10}`, so :math:`\text{scale}/2^{11} < g \le \text{scale}/2^{10}`.

    Examples
    --------
    >>> default_grid(1.0), default_grid(3.0) == 2.0**-9
    (0.0009765625, True)
    """
    s = _scale(scale)
    _, e = math.frexp(s)  # s = f 2**e, 1/2 <= f < 1
    return math.ldexp(1.0, e - 1 - GRID_SHIFT)


def _grid(grid: Any, scale: float) -> tuple[float, int]:
    """``(g, e)`` with ``g = 2**e``; a ValueError unless ``grid`` is a power of two in [scale/2**60, scale]."""
    if grid is None:
        g = default_grid(scale)
    else:
        if isinstance(grid, (bool, np.bool_)) or not isinstance(grid, (int, float, np.integer, np.floating)):
            raise TypeError(f"grid must be None or a power of two, got a {type(grid).__name__}")
        g = float(grid)
        f, _ = math.frexp(g) if math.isfinite(g) and g > 0 else (0.0, 0)
        if f != 0.5 or not (scale * 2.0**-_MIN_GRID_SHIFT <= g <= scale):
            raise ValueError(f"grid must be a power of two between scale / 2**{_MIN_GRID_SHIFT} and scale (or None)")
    _, e = math.frexp(g)
    return g, e - 1


def _values(value: Any) -> np.ndarray:
    try:
        x: np.ndarray | None = np.asarray(value, dtype=float)
    except (TypeError, ValueError, OverflowError):
        x = None
    if x is None:  # raised outside the except block: numpy's message repeats the value
        raise TypeError(f"value must be a real number or an array of them, got a {type(value).__name__}")
    if not np.all(np.isfinite(x)):
        raise ValueError("value must be finite (no NaN or inf)")
    return x


# ---------------------------------------------------------------------------------------------
# the exact sampler


def _flint() -> Any:
    try:
        import flint
    except ImportError as exc:
        raise ImportError(
            "secure noise needs python-flint (rigorous interval arithmetic for exact sampling): "
            "it is a dependency of rpp-book: pip install python-flint"
        ) from exc
    return flint


class _Uniform:
    """A uniform ``U`` on [0, 1) revealed lazily: ``U`` lies in ``[a 2**-m, (a+1) 2**-m)``."""

    __slots__ = ("a", "m", "src")

    def __init__(self, a: int, src: Any) -> None:
        self.a, self.m, self.src = a, _CHUNK, src

    def refine(self) -> None:
        if self.m >= MAX_BITS:
            raise RuntimeError(
                f"secure sampler: a comparison was still undecided after {MAX_BITS} random bits "
                "(probability ~2**-16000); this is a bug, please report it"
            )
        self.a = (self.a << _CHUNK) | int.from_bytes(self.src.take(_CHUNK // 8), "big")
        self.m += _CHUNK


def _dyadic_cmp(p: int, e1: int, q: int, e2: int) -> int:
    """Sign of ``p 2**e1 - q 2**e2`` (exact; no huge shifts when the exponents are far apart)."""
    sp, sq = (p > 0) - (p < 0), (q > 0) - (q < 0)
    if sp != sq or sp == 0:
        return (sp > sq) - (sp < sq)
    t1, t2 = e1 + abs(p).bit_length(), e2 + abs(q).bit_length()  # 2**(t-1) <= |.| < 2**t
    if t1 != t2:
        return sp if t1 > t2 else -sp
    e = min(e1, e2)  # here |e1 - e2| is at most the longer bit length
    d = (p << (e1 - e)) - (q << (e2 - e))
    return (d > 0) - (d < 0)


class _Kernel:
    """Rigorous comparisons ``U < F(t_j)``, ``t_j = ((j + 1/2) g - x) / scale`` for one ``x``.

    ``t_j = num_j / (2**E scale)`` with the exact integer ``num_j = (2j+1) G - X``; the balls of
    the denominators (``2**E scale`` times ``sqrt 2`` for the Gaussian) are shared through
    ``cache`` by the draws of one call.  The caller sets and restores ``flint.ctx.prec``.
    """

    def __init__(self, flint: Any, family: str, x: float, scale: float, e_grid: int, cache: dict) -> None:
        self.flint, self.family, self.scale, self.cache = flint, family, scale, cache
        p, q = x.as_integer_ratio()  # x = p / q exactly, q a power of two
        E = max(q.bit_length() - 1, 1 - e_grid, 0)
        self.X = p << (E - (q.bit_length() - 1))  # x = X / 2**E
        self.G = 1 << (e_grid - 1 + E)  # g / 2 = G / 2**E
        self.E = E

    def floor_x_over_g(self) -> int:
        return self.X // (2 * self.G)

    def _denominator(self, prec: int) -> Any:
        key = (prec, self.E)
        den = self.cache.get(key)
        if den is None:
            arb = self.flint.arb
            m, q = self.scale.as_integer_ratio()  # scale = m / q, q a power of two: scale 2**E exactly
            den = arb(m) * arb(2) ** (self.E - (q.bit_length() - 1))
            if self.family == "gaussian":
                den = den * arb(2).sqrt()  # the ball of 2**E scale sqrt(2)
            self.cache[key] = den
        return den

    def _enclosure(self, num: int, prec: int) -> tuple[int, int, int, int] | None:
        """``(lo_m, lo_e, hi_m, hi_e)``: ``lo_m 2**lo_e <= F(t_j) <= hi_m 2**hi_e`` (None: no finite ball)."""
        flint = self.flint
        flint.ctx.prec = prec
        den = self._denominator(prec)
        if self.family == "gaussian":  # F(t) = erfc(-t / sqrt 2) / 2
            ball = (flint.arb(-num) / den).erfc()
            half = 1
        else:  # F(t) = e^t / 2 for t < 0, 1 - e^{-t} / 2 for t > 0
            e = (flint.arb(-abs(num)) / den).exp()
            ball, half = (e, 1) if num < 0 else (1 - e / 2, 0)
        lower, upper = ball.lower(), ball.upper()
        if not (lower.is_finite() and upper.is_finite()):
            return None
        lo_m, lo_e = lower.man_exp()
        hi_m, hi_e = upper.man_exp()
        return lo_m, lo_e - half, hi_m, hi_e - half

    def below(self, u: _Uniform, j: int) -> bool:
        """Whether ``U < F(t_j)``, decided rigorously (drawing more bits of ``U`` while undecided)."""
        num = (2 * j + 1) * self.G - self.X  # t_j = num / (2**E scale), exact integer
        if num == 0:  # F(0) = 1/2 exactly for both symmetric laws
            return _dyadic_cmp(u.a + 1, -u.m, 1, -1) <= 0
        while True:
            box = self._enclosure(num, u.m + _GUARD)
            if box is not None:
                lo_m, lo_e, hi_m, hi_e = box
                if _dyadic_cmp(u.a + 1, -u.m, lo_m, lo_e) <= 0:  # U < (a+1) 2**-m <= F(t_j)
                    return True
                if _dyadic_cmp(u.a, -u.m, hi_m, hi_e) >= 0:  # U >= a 2**-m >= F(t_j)
                    return False
            u.refine()  # undecided (or no finite ball): more bits of U, more precision


def _search(kernel: _Kernel, u: _Uniform, guess: int) -> int:
    """Return the least ``j`` with ``U < F(t_j)`` (that is ``K``): gallop from ``guess``, then bisect."""
    if kernel.below(u, guess):
        hi, step = guess, 1
        lo = guess - step
        while kernel.below(u, lo):
            hi, step = lo, 2 * step
            lo = guess - step
    else:
        lo, step = guess, 1
        hi = guess + step
        while not kernel.below(u, hi):
            lo, step = hi, 2 * step
            hi = guess + step
    while hi - lo > 1:  # invariant: not below(lo), below(hi)
        mid = (lo + hi) // 2
        if kernel.below(u, mid):
            hi = mid
        else:
            lo = mid
    return hi


def _guess_offsets(family: str, a: np.ndarray, scale: float) -> np.ndarray:
    """Float approximations of the noise from the first 64 bits of each ``U`` (a starting point only)."""
    from scipy.special import ndtri

    u = (a.astype(float) + 0.5) * 2.0**-64
    u = np.clip(u, 2.0**-80, 1 - 2.0**-54)
    if family == "gaussian":
        return scale * ndtri(u)
    return np.where(u < 0.5, scale * np.log(2 * u), -scale * np.log(2 - 2 * u))


#: Half-width, in units of the scale, of the boundary table shared by many draws of one value.
_TABLE_HALF_WIDTH = {"gaussian": 4.0, "laplace": 10.0}


def _table(kernel: _Kernel, family: str, scale: float, g: float) -> tuple[int, np.ndarray, np.ndarray] | None:
    """Return integer bounds of the CDF boundaries near ``x`` at 64 bits, or None.

    ``(j0, L, H)`` with ``L[i] <= 2**64 F(t_{j0+i}) <= H[i]`` (from arb's balls, rounded outwards);
    None if any is outside ``(0, 2**64)`` (then every draw takes the per-draw path).
    """
    half = math.ceil(_TABLE_HALF_WIDTH[family] * scale / g) + 2
    j0 = kernel.floor_x_over_g() - half
    lows, highs = [], []
    for j in range(j0, j0 + 2 * half + 1):
        num = (2 * j + 1) * kernel.G - kernel.X
        box = (1, -1, 1, -1) if num == 0 else kernel._enclosure(num, 2 * _CHUNK)
        if box is None:
            return None
        lo_m, lo_e, hi_m, hi_e = box
        sl, sh = lo_e + _CHUNK, hi_e + _CHUNK
        low = lo_m << sl if sl >= 0 else lo_m >> -sl  # floor(2**64 lo)
        high = hi_m << sh if sh >= 0 else -((-hi_m) >> -sh)  # ceil(2**64 hi)
        if not (0 < low and high < 2**_CHUNK):
            return None
        lows.append(low)
        highs.append(high)
    return j0, np.array(lows, dtype=np.uint64), np.array(highs, dtype=np.uint64)


def sample_release(
    family: str,
    value: Any,
    scale: Any,
    grid: Any,
    rng: Any,
    insecure_seed: Any,
    stacklevel: int = 2,
    *,
    calibration: Any = None,
) -> Release:
    """Return the :class:`Release` of :func:`secure_gaussian` (``family="gaussian"``) or :func:`secure_laplace`.

    ``stacklevel`` locates the code to blame for :class:`InsecureNoiseWarning`, as in
    ``warnings.warn`` called here (2: the caller of ``sample_release``); the noise objects and the
    budget of ``rpp`` call it directly.  ``calibration`` is checked (same family and scale)
    before any bit is drawn.
    """
    src = bit_source(rng, insecure_seed, stacklevel=stacklevel + 1)
    x = _values(value)
    s = _scale(scale)
    g, e_grid = _grid(grid, s)
    if calibration is not None:
        _check_calibration(calibration, family, s)
    flint = _flint()
    flat = x.ravel()
    n = flat.size
    a0 = np.frombuffer(src.take(8 * n), dtype=">u8").astype(np.uint64) if n else np.zeros(0, np.uint64)
    k_out = [0] * n
    decided = np.zeros(n, dtype=bool)
    cache: dict = {}
    # python-flint's precision is one for the whole process: the draws hold rpp's lock while they set it
    # (rpp._lib.arb), and restore it after
    ARB_LOCK.acquire()
    prec0 = flint.ctx.prec
    try:
        # Many draws of one value share a table of the boundaries' 64-bit bounds.  A draw is decided
        # there only if H[i-1] <= a < L[i], i.e. F(t_{j-1}) <= a 2**-64 <= U < (a+1) 2**-64 <= F(t_j)
        # (K = j proved); every other draw takes the per-draw search with the same U.
        uniq, inverse, counts = np.unique(flat, return_inverse=True, return_counts=True)
        inverse = inverse.ravel()
        boundaries = 2 * _TABLE_HALF_WIDTH[family] * s / g
        for v, c in zip(uniq, counts, strict=True):
            if c < max(_TABLE_MIN, boundaries / 2):
                continue
            kernel = _Kernel(flint, family, float(v), s, e_grid, cache)
            table = _table(kernel, family, s, g)
            if table is None:  # pragma: no cover - the table spans F in about [1e-5, 1 - 1e-5]
                continue
            j0, lows, highs = table
            idx = np.flatnonzero(inverse == np.searchsorted(uniq, v))
            a = a0[idx]
            pos = np.searchsorted(lows, a, side="right")  # candidate: first i with a < L[i]
            inside = (pos >= 1) & (pos < lows.size)
            pc = np.clip(pos, 1, lows.size - 1)
            ok = inside & (a < lows[pc]) & (highs[pc - 1] <= a)
            for t, kk in zip(idx[ok].tolist(), (j0 + pc[ok]).tolist(), strict=True):
                k_out[t] = kk
            decided[idx[ok]] = True
        # Every other draw: the exact search from a float guess.
        rest = np.flatnonzero(~decided).tolist()
        z = _guess_offsets(family, a0[rest], s)
        for i, zi in zip(rest, z.tolist(), strict=True):
            kernel = _Kernel(flint, family, float(flat[i]), s, e_grid, cache)
            kx = kernel.floor_x_over_g()
            frac = float(Fraction(kernel.X - kx * 2 * kernel.G, 2 * kernel.G))
            step = zi / g
            guess = kx + (round(frac + step) if math.isfinite(step) else 0)
            k_out[i] = _search(kernel, _Uniform(int(a0[i]), src), guess)
    finally:
        flint.ctx.prec = prec0
        ARB_LOCK.release()
    out = np.empty(n)
    for i, k in enumerate(k_out):
        try:
            out[i] = math.ldexp(float(k), e_grid)  # k g, exact while |k| < 2**53; a function of k alone
        except OverflowError:
            out[i] = math.inf
    if not np.all(np.isfinite(out)):
        raise ValueError("value and scale put the release beyond the float64 range")
    shaped = out.reshape(x.shape)
    return Release(
        value=float(shaped) if shaped.ndim == 0 else shaped,
        family=family,
        scale=s,
        grid=g,
        source="insecure_seed" if src.unsafe else "os",
        reproducible=src.unsafe,
        calibration=calibration,
    )


def secure_gaussian(
    value: ArrayLike,
    *,
    scale: float,
    grid: float | None = None,
    rng: Any = None,
    insecure_seed: Any = None,
    calibration: Any = None,
) -> Release:
    r"""Release ``value`` with Gaussian noise, rounded to a grid and sampled exactly from OS entropy.

    Returns :math:`g\,\mathrm{round}((x + N)/g)`, :math:`N \sim \mathcal N(0, \text{scale}^2)`,
    sampled exactly (module docstring): a post-processing of the Gaussian mechanism, so every
    RPP guarantee of ``x + N`` holds for it unchanged.  Elementwise, independent draws.

    Parameters
    ----------
    value : float or array_like
        The query value(s) :math:`x`, finite; taken as the exact rational their float stores.
    scale : float
        Noise standard deviation :math:`\theta` in ``[1e-300, 1e300]``.
    grid : float, optional
        Output grid :math:`g`, a power of two in ``[scale / 2**60, scale]``; default
        :func:`default_grid` (largest power of two ``<= scale / 1024``).
    rng : None or random.SystemRandom
        ``None``: the operating system's entropy (``os.urandom``).  A numpy Generator or an
        int is refused (ValueError).
    insecure_seed : int or tuple of int, optional
        Reproducible, **unsafe** noise (teaching, tests): numpy PCG64 bits through the same
        exact sampler; issues :class:`InsecureNoiseWarning`.  Keyword only, never with ``rng``.
    calibration : rpp.Calibration, optional
        The calibration whose scale is used, kept in the record for the report (its ``noise``
        must be ``"gaussian"`` and its ``scale`` equal ``scale``, else a ValueError naming
        ``calibration``).

    Returns
    -------
    Release
        The record: ``.value`` holds the multiples of ``grid``, the shape of ``value``;
        ``.source`` is ``"os"`` or ``"insecure_seed"``.

    Raises
    ------
    ValueError
        Non-finite ``value``, ``scale`` or ``grid`` out of range, a numpy Generator or an int
        as ``rng``, both ``rng`` and ``insecure_seed``, a ``calibration`` of another family or
        scale.  Messages never contain ``value``.
    ImportError
        Without python-flint (a dependency of ``rpp-book``, missing from this environment).

    Examples
    --------
    >>> r = secure_gaussian([1.0, 2.0], scale=2.0)  # OS entropy
    >>> y = r.value
    >>> y.shape, bool(np.all(y / default_grid(2.0) == np.round(y / default_grid(2.0)))), r.source
    ((2,), True, 'os')
    >>> secure_gaussian(1.0, scale=2.0, rng=0)
    Traceback (most recent call last):
    ...
    ValueError: rng must be None (the operating system's entropy) or a random.SystemRandom, got a int: ...
    """
    return sample_release("gaussian", value, scale, grid, rng, insecure_seed, stacklevel=3, calibration=calibration)


def secure_laplace(
    value: ArrayLike,
    *,
    scale: float,
    grid: float | None = None,
    rng: Any = None,
    insecure_seed: Any = None,
    calibration: Any = None,
) -> Release:
    r"""Release ``value`` with Laplace noise, rounded to a grid and sampled exactly from OS entropy.

    Returns :math:`g\,\mathrm{round}((x + N)/g)`, :math:`N \sim \mathrm{Laplace}(0, b)`,
    :math:`b` = ``scale`` (density :math:`e^{-|z|/b}/(2b)`), sampled exactly; see
    :func:`secure_gaussian` for the arguments, the grid, the randomness and the returned
    :class:`Release` (a ``calibration`` must be a Laplace one of this scale).

    Parameters
    ----------
    value : float or array_like
        The query value(s), finite.
    scale : float
        Laplace scale :math:`b` in ``[1e-300, 1e300]``.
    grid : float, optional
        Output grid, as in :func:`secure_gaussian`.
    rng : None or random.SystemRandom
        ``None``: the operating system's entropy.
    insecure_seed : int or tuple of int, optional
        Reproducible, **unsafe** noise; never for a real release.
    calibration : rpp.Calibration, optional
        The Laplace calibration whose scale is used (checked).

    Returns
    -------
    Release
        The record of the release (``.value``, ``.source``, ``.reproducible`` ...).

    Examples
    --------
    >>> import warnings
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore", InsecureNoiseWarning)
    ...     a = secure_laplace(0.5, scale=1.0, insecure_seed=7)
    ...     b = secure_laplace(0.5, scale=1.0, insecure_seed=7)
    >>> a.value == b.value, (a.value / 2.0**-10).is_integer(), a.source, a.reproducible
    (True, True, 'insecure_seed', True)
    """
    return sample_release("laplace", value, scale, grid, rng, insecure_seed, stacklevel=3, calibration=calibration)
