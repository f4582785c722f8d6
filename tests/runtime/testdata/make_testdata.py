"""Writes the small .npz files the npz reader tests load (run with the project's venv; the
outputs are committed, so the C++ tests need no Python). Values are simple so that the tests can
state them by hand."""

import io
import zipfile

import ml_dtypes
import numpy as np

every_dtype = {
    "f32": np.array([[1.5, -2.0, 3.25], [0.0, 1e-3, -7.0]], dtype="<f4"),
    "f64": np.array(2.5, dtype="<f8"),
    "f16": np.array([1.0, -0.5, 65504.0], dtype="<f2"),
    "b1": np.array([True, False, True]),
    "i1": np.array([-128, 127], dtype="i1"),
    "i2": np.array([-300, 300], dtype="<i2"),
    "i4": np.arange(4, dtype="<i4") - 1,
    "i8": np.array([-(2**40)], dtype="<i8"),
    "u1": np.array([0, 255], dtype="u1"),
    "u2": np.array([65535], dtype="<u2"),
    "u4": np.array([4000000000], dtype="<u4"),
    "u8": np.array([2**63], dtype="<u8"),
    "empty": np.zeros((0, 3), dtype="<f4"),
    "bf16": np.array([1.5, -2.0], dtype=ml_dtypes.bfloat16),  # saved by numpy as '<V2'
}
np.savez("every_dtype.npz", **every_dtype)
np.savez_compressed(
    "compressed.npz", x=np.arange(1000, dtype="<f8").reshape(10, 100), y=np.array([7], dtype="<i4")
)
np.savez("big_endian.npz", x=np.array([1.0, 2.0], dtype=">f4"))
np.savez("fortran.npz", x=np.asfortranarray(np.ones((2, 3), dtype="<f4")))
# Complex arrays read as their (real, imaginary) pairs; long double complex has no such pair type.
np.savez("complex.npz", z=np.array([1 + 2j, -3.5 + 0j], dtype="<c8"), w=np.complex128(0.25 - 1j))
np.savez("complex_long.npz", z=np.array([1 + 2j], dtype=np.clongdouble))
np.savez("object.npz", o=np.array([{"a": 1}], dtype=object))

# A truncated archive and a file that is not a zip at all.
with open("every_dtype.npz", "rb") as f:
    whole = f.read()
with open("truncated.npz", "wb") as f:
    f.write(whole[: len(whole) // 2])
with open("garbage.npz", "wb") as f:
    f.write(b"this is not a zip archive\n" * 4)

# A valid zip whose member is not a .npy array.
with zipfile.ZipFile("not_npy.npz", "w") as z:
    z.writestr("x.npy", b"hello")
# A .npy whose data is shorter than its shape says.
buffer = io.BytesIO()
np.save(buffer, np.zeros((4,), dtype="<f4"))
with zipfile.ZipFile("short_data.npz", "w") as z:
    z.writestr("x.npy", buffer.getvalue()[:-4])
