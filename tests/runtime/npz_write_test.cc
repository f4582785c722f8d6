// Writing .npz files: the .npy bytes are exactly what numpy writes (so numpy.load reads them), and
// a write/read round trip gives back every array unchanged.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>

#include "runtime/npz.h"

namespace lf::runtime {
namespace {

HostArray makeArray(DType dtype, std::vector<int64_t> dims, std::vector<uint8_t> data) {
  HostArray a;
  a.type.dtype = dtype;
  a.type.dims = std::move(dims);
  a.data = std::move(data);
  return a;
}

TEST(NpyWrite, BytesAreNumpySaves) {
  HostArray a = makeArray(DType::S32, {3}, {1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0});
  // numpy.save(f, np.array([1, 2, 3], dtype='<i4')) with numpy 2.x: a 118-byte header (0x76),
  // padded with spaces so that the data starts at byte 128.
  const std::string expected = std::string("\x93NUMPY\x01\x00\x76\x00", 10) +
                               "{'descr': '<i4', 'fortran_order': False, 'shape': (3,), }" +
                               std::string(60, ' ') + "\n" +
                               std::string("\x01\x00\x00\x00\x02\x00\x00\x00\x03\x00\x00\x00", 12);
  EXPECT_EQ(serializeNpy(a), expected);
}

TEST(NpyWrite, ScalarAndMatrixShapes) {
  EXPECT_NE(serializeNpy(makeArray(DType::F64, {}, std::vector<uint8_t>(8))).find("'shape': ()"),
            std::string::npos);
  EXPECT_NE(serializeNpy(makeArray(DType::Pred, {2, 1}, {1, 0})).find("'descr': '|b1'"),
            std::string::npos);
  EXPECT_NE(serializeNpy(makeArray(DType::Pred, {2, 1}, {1, 0})).find("'shape': (2, 1)"),
            std::string::npos);
}

TEST(NpzWrite, RoundTripEveryDtype) {
  NamedArrays arrays;
  for (DType t : kAllDTypes) {
    std::vector<uint8_t> data(static_cast<size_t>(2 * 3 * byteSize(t)));
    for (size_t i = 0; i < data.size(); ++i) data[i] = static_cast<uint8_t>(i * 37 + 1);
    if (t == DType::Pred)
      for (auto& b : data) b &= 1;
    arrays.emplace_back("array_" + std::string(dtypeName(t)), makeArray(t, {2, 3}, data));
  }
  arrays.emplace_back("scalar", makeArray(DType::F32, {}, {0, 0, 0x80, 0x3f}));
  arrays.emplace_back("empty", makeArray(DType::S8, {0}, {}));

  const std::string path =
      (std::filesystem::temp_directory_path() / "loopfuse_npz_round_trip.npz").string();
  writeNpz(path, arrays);
  NamedArrays back = readNpz(path);
  std::remove(path.c_str());

  ASSERT_EQ(back.size(), arrays.size());
  for (size_t i = 0; i < arrays.size(); ++i) {
    EXPECT_EQ(back[i].first, arrays[i].first);
    // bf16 has no numpy dtype: it is written as u16 bits and reads back as u16.
    const DType want =
        arrays[i].second.type.dtype == DType::BF16 ? DType::U16 : arrays[i].second.type.dtype;
    EXPECT_EQ(back[i].second.type.dtype, want) << arrays[i].first;
    EXPECT_EQ(back[i].second.type.dims, arrays[i].second.type.dims) << arrays[i].first;
    EXPECT_EQ(back[i].second.data, arrays[i].second.data) << arrays[i].first;
  }
}

TEST(NpzWrite, UnwritablePathIsAnNpzError) {
  EXPECT_THROW(writeNpz("/nonexistent-dir/x.npz", {{"x", makeArray(DType::U8, {1}, {7})}}),
               NpzError);
}

}  // namespace
}  // namespace lf::runtime
