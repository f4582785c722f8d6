"""The pytest suite's comparison (tests/programs/tolerances.py), against numbers worked by hand.

The C++ side of the same rule is tests/runtime/tolerance_compare_test.cc.
"""

from __future__ import annotations

import numpy as np

from conftest import assert_close
from tolerances import close_mask, within_tolerance


def test_float_parts_use_the_dtype_tolerance() -> None:
    # f32: rtol 1e-5, atol 1e-6. 1.000009 is within 1e-6 + 1e-5 * 1 of 1; 1.00002 is not.
    expected = np.array([1.0, 1.0, np.nan], np.float32)
    assert close_mask(np.array([1.000009, 1.00002, np.nan], np.float32), expected).tolist() == [
        True,
        False,
        True,
    ]


def test_a_complex_pair_also_matches_within_its_modulus() -> None:
    # pow(-1e-20-40j, 1) in f32: XLA:CPU 3.02e-6-40j, the GPU -1.75e-6-40j (40 * cos(fl(pi/2))).
    # Part by part the real parts differ by 4.8e-6 > atol 1e-6; beside the modulus 40 that is
    # 1.2e-7 relative, inside rtol 1e-5.
    expected = np.array([3.019916e-6 - 40j, 1 + 2j], np.complex64)
    actual = np.array([-1.74846e-6 - 40j, 1 + 2j], np.complex64)
    assert within_tolerance(actual, expected)
    assert not within_tolerance(actual.view(np.float32), expected.view(np.float32))  # as parts
    assert_close(actual, expected)
    # 1e-3 beside 40 is 2.5e-5 relative: outside.
    far = np.array([1e-3 - 40j, 1 + 2j], np.complex64)
    assert close_mask(far, np.array([-40j, 1 + 2j], np.complex64)).tolist() == [
        [False, True],
        [True, True],
    ]


def test_non_finite_complex_parts_compare_part_by_part() -> None:
    inf, nan = np.inf, np.nan
    expected = np.array([complex(inf, 1), complex(nan, 1)], np.complex64)
    assert within_tolerance(expected.copy(), expected)
    assert not within_tolerance(
        np.array([complex(3e38, 1), complex(nan, 1)], np.complex64), expected
    )
