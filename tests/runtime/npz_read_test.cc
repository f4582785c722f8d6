// Reading .npz files written by numpy (tests/runtime/testdata/make_testdata.py): every dtype, the
// stored and the deflated member forms, and clean errors for files loopfuse cannot represent.
#include <gtest/gtest.h>

#include <cstring>
#include <map>

#include "runtime/npz.h"

namespace lf::runtime {
namespace {

std::string testdata(const std::string& name) {
  return std::string(LF_SOURCE_DIR) + "/tests/runtime/testdata/" + name;
}

template <class T>
std::vector<T> values(const HostArray& a) {
  std::vector<T> v(a.data.size() / sizeof(T));
  std::memcpy(v.data(), a.data.data(), v.size() * sizeof(T));
  return v;
}

std::map<std::string, HostArray> readAsMap(const std::string& file) {
  std::map<std::string, HostArray> m;
  for (auto& [name, array] : readNpz(testdata(file))) m[name] = array;
  return m;
}

TEST(NpzRead, KeepsArchiveOrderAndStripsSuffix) {
  auto arrays = readNpz(testdata("every_dtype.npz"));
  ASSERT_EQ(arrays.size(), 14u);
  EXPECT_EQ(arrays[0].first, "f32");
  EXPECT_EQ(arrays[1].first, "f64");
  EXPECT_EQ(arrays[13].first, "bf16");
}

TEST(NpzRead, EveryDtypeWithShapeAndValues) {
  auto m = readAsMap("every_dtype.npz");
  EXPECT_EQ(m["f32"].type.dtype, DType::F32);
  EXPECT_EQ(m["f32"].type.dims, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(values<float>(m["f32"]), (std::vector<float>{1.5f, -2.0f, 3.25f, 0.0f, 1e-3f, -7.0f}));

  EXPECT_EQ(m["f64"].type.dtype, DType::F64);
  EXPECT_TRUE(m["f64"].type.dims.empty());
  EXPECT_EQ(values<double>(m["f64"]), std::vector<double>{2.5});

  EXPECT_EQ(m["f16"].type.dtype, DType::F16);
  // IEEE half bits of 1.0, -0.5 and 65504 (the largest finite half).
  EXPECT_EQ(values<uint16_t>(m["f16"]), (std::vector<uint16_t>{0x3c00, 0xb800, 0x7bff}));

  EXPECT_EQ(m["b1"].type.dtype, DType::Pred);
  EXPECT_EQ(m["b1"].data, (std::vector<uint8_t>{1, 0, 1}));
  EXPECT_EQ(m["i1"].type.dtype, DType::S8);
  EXPECT_EQ(values<int8_t>(m["i1"]), (std::vector<int8_t>{-128, 127}));
  EXPECT_EQ(m["i2"].type.dtype, DType::S16);
  EXPECT_EQ(values<int16_t>(m["i2"]), (std::vector<int16_t>{-300, 300}));
  EXPECT_EQ(m["i4"].type.dtype, DType::S32);
  EXPECT_EQ(values<int32_t>(m["i4"]), (std::vector<int32_t>{-1, 0, 1, 2}));
  EXPECT_EQ(m["i8"].type.dtype, DType::S64);
  EXPECT_EQ(values<int64_t>(m["i8"]), std::vector<int64_t>{-(int64_t{1} << 40)});
  EXPECT_EQ(m["u1"].type.dtype, DType::U8);
  EXPECT_EQ(values<uint8_t>(m["u1"]), (std::vector<uint8_t>{0, 255}));
  EXPECT_EQ(m["u2"].type.dtype, DType::U16);
  EXPECT_EQ(values<uint16_t>(m["u2"]), std::vector<uint16_t>{65535});
  EXPECT_EQ(m["u4"].type.dtype, DType::U32);
  EXPECT_EQ(values<uint32_t>(m["u4"]), std::vector<uint32_t>{4000000000u});
  EXPECT_EQ(m["u8"].type.dtype, DType::U64);
  EXPECT_EQ(values<uint64_t>(m["u8"]), std::vector<uint64_t>{uint64_t{1} << 63});
}

TEST(NpzRead, EmptyArray) {
  auto m = readAsMap("every_dtype.npz");
  EXPECT_EQ(m["empty"].type.dims, (std::vector<int64_t>{0, 3}));
  EXPECT_TRUE(m["empty"].data.empty());
}

TEST(NpzRead, Bfloat16FromMlDtypesComesBackAsBits) {
  auto m = readAsMap("every_dtype.npz");
  EXPECT_EQ(m["bf16"].type.dtype, DType::U16);
  // bf16 is the top half of the f32: 1.5 = 0x3fc00000, -2.0 = 0xc0000000.
  EXPECT_EQ(values<uint16_t>(m["bf16"]), (std::vector<uint16_t>{0x3fc0, 0xc000}));
}

TEST(NpzRead, DeflatedMembers) {
  auto m = readAsMap("compressed.npz");
  ASSERT_EQ(m["x"].type.dims, (std::vector<int64_t>{10, 100}));
  auto x = values<double>(m["x"]);
  ASSERT_EQ(x.size(), 1000u);
  for (int i = 0; i < 1000; ++i) ASSERT_EQ(x[i], i);
  EXPECT_EQ(values<int32_t>(m["y"]), std::vector<int32_t>{7});
}

// A complex array is its (real, imaginary) pairs: the part type, a trailing dimension of 2.
TEST(NpzRead, ComplexArraysReadAsTheirPairs) {
  auto m = readAsMap("complex.npz");
  EXPECT_EQ(m["z"].type.dtype, DType::F32);
  EXPECT_EQ(m["z"].type.dims, (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(values<float>(m["z"]), (std::vector<float>{1.0f, 2.0f, -3.5f, 0.0f}));
  EXPECT_EQ(m["w"].type.dtype, DType::F64);
  EXPECT_EQ(m["w"].type.dims, (std::vector<int64_t>{2}));
  EXPECT_EQ(values<double>(m["w"]), (std::vector<double>{0.25, -1.0}));
  EXPECT_TRUE(m["z"].complexPairs);  // so --check compares them as complex numbers too
  EXPECT_TRUE(m["w"].complexPairs);
}

// Expects readNpz(file) to throw an NpzError whose message contains every one of `parts`.
void expectError(const std::string& file, std::vector<std::string> parts) {
  try {
    readNpz(testdata(file));
    FAIL() << file << " was accepted";
  } catch (const NpzError& e) {
    std::string message = e.what();
    for (const auto& part : parts)
      EXPECT_NE(message.find(part), std::string::npos) << "'" << part << "' not in: " << message;
  }
}

TEST(NpzRead, RejectsWhatItCannotRepresentNamingFileAndArray) {
  expectError("big_endian.npz", {"big_endian.npz", "'x.npy'", "big-endian", ">f4"});
  expectError("fortran.npz", {"fortran.npz", "'x.npy'", "Fortran"});
  expectError("complex_long.npz", {"complex_long.npz", "'z.npy'", "complex", "<c32"});
  expectError("object.npz", {"object.npz", "'o.npy'", "object"});
}

TEST(NpzRead, RejectsDamagedFiles) {
  expectError("garbage.npz", {"garbage.npz", "zip"});
  expectError("truncated.npz", {"truncated.npz"});
  expectError("not_npy.npz", {"not_npy.npz", "'x.npy'", "not a .npy"});
  expectError("short_data.npz", {"short_data.npz", "expected 16 data bytes", "found 12"});
  expectError("does_not_exist.npz", {"does_not_exist.npz"});
}

TEST(NpyParse, RejectsMalformedHeaders) {
  auto npy = [](const std::string& dict) {
    std::string s = "\x93NUMPY\x01";
    s += '\0';
    s += static_cast<char>(dict.size());
    s += '\0';
    return s + dict;
  };
  EXPECT_NO_THROW(parseNpy(
      npy("{'descr': '<i4', 'fortran_order': False, 'shape': (), }") + std::string(4, '\0'), "ok"));
  EXPECT_THROW(parseNpy(npy("{'descr': '<i4', 'shape': (), }"), "x"), NpzError);
  EXPECT_THROW(parseNpy(npy("{'descr': '<i4', 'fortran_order': Maybe, 'shape': ()}"), "x"),
               NpzError);
  EXPECT_THROW(parseNpy(npy("{'descr': '<i4', 'fortran_order': False, 'shape': (-1,)}"), "x"),
               NpzError);
  EXPECT_THROW(parseNpy(npy("{'descr': '<i4', 'fortran_order': False, 'shape': (2"), "x"),
               NpzError);
  EXPECT_THROW(parseNpy(npy("{'descr': [('a', '<i4')], 'fortran_order': False, 'shape': ()}"), "x"),
               NpzError);
  // A shape whose byte size overflows must not allocate.
  EXPECT_THROW(parseNpy(npy("{'descr': '<f8', 'fortran_order': False, "
                            "'shape': (4294967296, 4294967296), }"),
                        "x"),
               NpzError);
  EXPECT_THROW(parseNpy("\x93NUMPY\x01", "x"), NpzError);
}

}  // namespace
}  // namespace lf::runtime
