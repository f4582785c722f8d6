// Complex scalars for the complex linear algebra (codegen/emit_linalg_complex.cc): a value of the
// kernel's split complex arrays (real and imaginary parts in two arrays) read into one pair, the
// arithmetic LAPACK's complex routines do on it, and the pair written back. Included by
// lf_common.h (pasted in place by preludeText).
#pragma once

template <class T>
struct lf_cx {
  T re, im;
};

template <class T>
LF_DEVICE lf_cx<T> lf_cx_make(T re, T im) {
  return lf_cx<T>{re, im};
}
template <class T>
LF_DEVICE lf_cx<T> lf_cx_conj(lf_cx<T> a) {
  return lf_cx<T>{a.re, -a.im};
}
template <class T>
LF_DEVICE lf_cx<T> lf_cx_sub(lf_cx<T> a, lf_cx<T> b) {
  return lf_cx<T>{a.re - b.re, a.im - b.im};
}
template <class T>
LF_DEVICE lf_cx<T> lf_cx_mul(lf_cx<T> a, lf_cx<T> b) {
  return lf_cx<T>{a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re};
}
// a - b c, the update of every elimination and substitution step.
template <class T>
LF_DEVICE lf_cx<T> lf_cx_sub_mul(lf_cx<T> a, lf_cx<T> b, lf_cx<T> c) {
  return lf_cx_sub(a, lf_cx_mul(b, c));
}
// Smith's algorithm: the ratio of the divisor's smaller part to its larger, so that no square of
// a part overflows or underflows (the reciprocal OpenBLAS's zgetf2 and ztrsm compute the same way).
template <class T>
LF_DEVICE lf_cx<T> lf_cx_div(lf_cx<T> a, lf_cx<T> b) {
  const T abr = b.re < 0 ? -b.re : b.re;
  const T abi = b.im < 0 ? -b.im : b.im;
  if (abr >= abi) {
    const T ratio = b.im / b.re;
    const T den = b.re + b.im * ratio;
    return lf_cx<T>{(a.re + a.im * ratio) / den, (a.im - a.re * ratio) / den};
  }
  const T ratio = b.re / b.im;
  const T den = b.im + b.re * ratio;
  return lf_cx<T>{(a.re * ratio + a.im) / den, (a.im * ratio - a.re) / den};
}
// |re| + |im|: the magnitude LAPACK's izamax compares to choose a pivot (a NaN never wins).
template <class T>
LF_DEVICE T lf_cx_abs1(lf_cx<T> a) {
  return (a.re < 0 ? -a.re : a.re) + (a.im < 0 ? -a.im : a.im);
}
template <class T>
LF_DEVICE bool lf_cx_is_zero(lf_cx<T> a) {
  return a.re == (T)0 && a.im == (T)0;
}
