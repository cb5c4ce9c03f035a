"""Independent mpmath oracle for Rényi divergences of noisy priors (shares no code with rpp).

D_alpha(P * Z || Q * Z) = log(int p^alpha q^(1-alpha)) / (alpha - 1) for priors given as
(weights, means, variances) lists of floats (variance 0: an atom) and noise Z Gaussian
(variance ``noise_var``) or Laplace (scale ``b``).  Everything is converted to mpmath numbers
exactly and translated (exactly, in mpmath) by the first mean, then integrated by mpmath's
tanh-sinh quadrature between breakpoints at every mean and at 1, 3, 10, 40 times each
component's own spread and the noise's, at ``dps`` digits (default 50).
"""

import mpmath as mp


def _comps(prior, shift):
    w, m, v = prior
    return [(mp.mpf(wi), mp.mpf(mi) - shift, mp.mpf(vi)) for wi, mi, vi in zip(w, m, v, strict=True)]


def _gauss_density(comps, noise_var):
    def f(y):
        tot = mp.mpf(0)
        for w, m, v in comps:
            s2 = v + noise_var
            tot += w * mp.exp(-((y - m) ** 2) / (2 * s2)) / mp.sqrt(2 * mp.pi * s2)
        return tot

    return f


def _laplace_density(comps, b):
    def f(y):
        tot = mp.mpf(0)
        for w, m, v in comps:
            z = y - m
            if v == 0:
                tot += w * mp.exp(-abs(z) / b) / (2 * b)
            else:
                s = mp.sqrt(v)
                # N(m, s^2) * Lap(b): (1/2b) sum_+- e^{s^2/(2b^2) -+ z/b} Phi(+-z/s - s/b)
                e1 = mp.exp(s**2 / (2 * b**2) - z / b) * mp.ncdf(z / s - s / b)
                e2 = mp.exp(s**2 / (2 * b**2) + z / b) * mp.ncdf(-z / s - s / b)
                tot += w * (e1 + e2) / (2 * b)
        return tot

    return f


def renyi(p, q, alpha, *, noise, scale, dps=50):
    """D_alpha(p * Z || q * Z); ``noise`` "gaussian" (``scale`` = theta) or "laplace" (``scale`` = b)."""
    with mp.workdps(dps):
        shift = mp.mpf(p[1][0])
        P, Q = _comps(p, shift), _comps(q, shift)
        a = mp.mpf(alpha)
        sc = mp.mpf(scale)
        if noise == "gaussian":
            nv = sc**2
            fp, fq = _gauss_density(P, nv), _gauss_density(Q, nv)
            own = [[mp.sqrt(v + nv)] for _, _, v in P + Q]
        else:
            fp, fq = _laplace_density(P, sc), _laplace_density(Q, sc)
            own = [([mp.sqrt(v)] if v > 0 else []) + [sc] for _, _, v in P + Q]
        pts = set()
        for (_, m, _), spreads in zip(P + Q, own, strict=True):
            for s in spreads:
                for k in (0, 1, 3, 10, 40):
                    pts.add(m + k * s)
                    pts.add(m - k * s)
        pts = sorted(pts)

        def f(y):
            return fp(y) ** a * fq(y) ** (1 - a)

        total = mp.quad(f, [mp.ninf, *pts, mp.inf])
        return mp.log(total) / (a - 1)


def gaussian_noise_renyi(mi, vi, mj, vj, alpha, z, *, dps=50):
    """D_alpha(N(mi, vi + z) || N(mj, vj + z)), alpha > 1, in closed form at ``dps`` digits on the exact binary inputs.

    ``a dm^2 / (2 s) + log(s / (v0^(1 - a) v1^a)) / (2 (1 - a))`` with ``v0 = vi + z``, ``v1 = vj + z``
    and ``s = (1 - a) v0 + a v1``; ``+inf`` outside the domain (``s <= 0``).
    """
    with mp.workdps(dps):
        mi, vi, mj, vj, a, z = (mp.mpf(float(x)) for x in (mi, vi, mj, vj, alpha, z))
        v0, v1 = vi + z, vj + z
        s = (1 - a) * v0 + a * v1
        if s <= 0:
            return mp.inf
        return a * (mi - mj) ** 2 / (2 * s) + mp.log(s / (v0 ** (1 - a) * v1**a)) / (2 * (1 - a))
