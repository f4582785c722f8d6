// XLA's `rng-bit-generator` (jax.random with impl="rbg" or "unsafe_rbg", lax.rng_bit_generator),
// expanded into elementwise IR ops the way XLA's RngBitGeneratorExpander does on CPU and GPU
// (xla/hlo/builder/lib/prng.cc), so the bits are XLA's. The default algorithm there is
// Philox4x32-10. Checked against jax.jit by tests/python/test_jit_rng_bit_generator.py; the
// layouts below were measured against jax 0.11.
//
// The state is u64[2] = (key, counter); the key's low and high words are the cipher's key.
//
// Philox: output word w of block j is word w of
// philox(counter_128 + j, key), where the 128-bit counter has the state's counter as its low half
// and the key as its high half (XLA reads the state reversed); blocks are consecutive, so element
// i of a 32-bit output is word i % 4 of block i / 4. A 64-bit element joins two consecutive words
// (low first); an 8- or 16-bit one is a word's low bits. The new state is (key, counter + blocks).
//
// ThreeFry: counter + i (i = 0, 1, ...) split into its (low, high) words goes through
// threefry2x32, giving the pair (o0, o1). A 64-bit element i is o1 << 32 | o0 of counter + i. A
// narrower output is split in two along one dimension d (the first even one, else the first
// largest): the counters have the output's shape with dimension d halved (rounded up), and output
// [..., 2k + h, ...] is o_h of counter [..., k, ...], cut to its low bits. The new state is
// (key, counter + counters used).
#include <array>

#include "frontend/region_builder.h"

namespace lf::frontend {
namespace {

using ir::OpKind;

constexpr uint32_t kPhiloxM0 = 0xD2511F53u, kPhiloxM1 = 0xCD9E8D57u;  // round multipliers
constexpr uint32_t kPhiloxW0 = 0x9E3779B9u, kPhiloxW1 = 0xBB67AE85u;  // key schedule
constexpr int kPhiloxRounds = 10;

// The cipher rounds, built from the region builder's ops.
class RngBuilder : public RegionBuilder {
 public:
  explicit RngBuilder(InstrContext& c) : RegionBuilder(c, c.region) {}

  // The u32 halves of a u64 array: (low, high).
  std::pair<ir::Value*, ir::Value*> halves(ir::Value* v) {
    ir::Value* high = binary(OpKind::ShiftRightLogical, v, splat(DType::U64, 32, v->type.dims));
    return {convert(v, DType::U32), convert(high, DType::U32)};
  }

  // threefry2x32 of the counters (x0, x1) under the key (k0, k1) (u32 scalars): (o0, o1).
  std::pair<ir::Value*, ir::Value*> threefry(ir::Value* x0, ir::Value* x1, ir::Value* k0,
                                             ir::Value* k1) {
    const ir::Type& t = x0->type;
    ir::Op* o = ops(OpKind::Threefry2x32, {splat(k0, t.dims), splat(k1, t.dims), x0, x1}, {t, t});
    return {o->result(0), o->result(1)};
  }

  // Philox4x32-10 of the counters x[0..3] (u32[n] each) under the key (k0, k1) (u32 scalars).
  std::array<ir::Value*, 4> philox(std::array<ir::Value*, 4> x, ir::Value* k0, ir::Value* k1) {
    const std::vector<int64_t>& dims = x[0]->type.dims;
    ir::Value* m0 = splat(DType::U64, kPhiloxM0, dims);
    ir::Value* m1 = splat(DType::U64, kPhiloxM1, dims);
    for (int round = 0; round < kPhiloxRounds; ++round) {
      auto [lo0, hi0] = halves(binary(OpKind::Multiply, convert(x[0], DType::U64), m0));
      auto [lo1, hi1] = halves(binary(OpKind::Multiply, convert(x[2], DType::U64), m1));
      x = {binary(OpKind::Xor, binary(OpKind::Xor, hi1, x[1]), splat(k0, dims)), lo1,
           binary(OpKind::Xor, binary(OpKind::Xor, hi0, x[3]), splat(k1, dims)), lo0};
      if (round + 1 < kPhiloxRounds) {
        k0 = binary(OpKind::Add, k0, scalar(DType::U32, kPhiloxW0));
        k1 = binary(OpKind::Add, k1, scalar(DType::U32, kPhiloxW1));
      }
    }
    return x;
  }
};

// The words the output's elements take, in order, as u32[words] (Philox).
ir::Value* philoxStream(RngBuilder& b, ir::Value* key, ir::Value* counter, int64_t blocks) {
  // Block j's 128-bit counter: low = counter + j, high = key plus the carry out of the low half.
  const std::vector<int64_t> v{blocks};
  ir::Value* j = b.op(OpKind::Iota, {}, ir::Type{DType::U64, v}, ir::IotaAttrs{0});
  ir::Value* low = b.binary(OpKind::Add, b.splat(counter, v), j);
  ir::Value* carried = b.op(OpKind::Compare, {low, b.splat(counter, v)}, ir::Type{DType::Pred, v},
                            ir::CompareAttrs{ir::CompareDirection::LT, ir::CompareType::Unsigned});
  ir::Value* keyPlusOne = b.binary(OpKind::Add, key, b.scalar(DType::U64, 1));
  ir::Value* high = b.op(OpKind::Select, {carried, b.splat(keyPlusOne, v), b.splat(key, v)},
                         ir::Type{DType::U64, v});
  auto [x0, x1] = b.halves(low);
  auto [x2, x3] = b.halves(high);
  auto [k0, k1] = b.halves(key);
  std::array<ir::Value*, 4> w = b.philox({x0, x1, x2, x3}, k0, k1);
  Values columns;  // block-major, word-minor
  for (ir::Value* word : w) columns.push_back(b.reshape(word, {blocks, 1}));
  return b.reshape(b.op(OpKind::Concatenate, columns, ir::Type{DType::U32, {blocks, 4}},
                        ir::ConcatenateAttrs{1}),
                   {4 * blocks});
}

Values rngBitGenerator(InstrContext& c) {
  c.expectOperands(1);
  ir::Value* state = c.array(0);
  const hlo::Attribute& algorithm = c.attr("algorithm");
  const bool threefry = algorithm.value == "rng_three_fry";
  if (!threefry && algorithm.value != "rng_default" && algorithm.value != "rng_philox") {
    throw CompileError(algorithm.valueLoc, "unknown rng-bit-generator algorithm '" +
                                               algorithm.value +
                                               "' (expected rng_default, rng_philox or "
                                               "rng_three_fry)");
  }
  if (state->type != ir::Type{DType::U64, {2}}) {
    c.fail("rng-bit-generator state must be u64[2] (as JAX makes it from a u32[4] key), got " +
           state->type.toString());
  }
  const std::vector<ir::Type> types = c.resultTypes();
  if (types.size() != 2 || types[0] != state->type) {
    c.fail("rng-bit-generator must give (u64[2] state, bits), as its operand's state");
  }
  const ir::Type out = types[1];
  const int width = bitWidth(out.dtype);
  if (out.dtype == DType::Pred || (width != 8 && width != 16 && width != 32 && width != 64)) {
    c.fail("rng-bit-generator cannot make " + out.toString());
  }
  const int64_t n = out.numElements();
  const int64_t words = width == 64 ? 2 * n : n;  // u32 words of output
  // Counters used: Philox makes 4 words from each, threefry 2.
  // ThreeFry's split dimension and counter shape (for outputs of 32 bits or fewer).
  std::vector<int64_t> dims = out.dims.empty() ? std::vector<int64_t>{1} : out.dims;
  size_t split = 0;
  for (size_t d = 0; d < dims.size(); ++d) {
    if (dims[d] > dims[split]) split = d;
  }
  for (size_t d = dims.size(); d-- > 0;) {
    if (dims[d] > 1 && dims[d] % 2 == 0) split = d;
  }
  std::vector<int64_t> halfDims = dims;
  halfDims[split] = (dims[split] + 1) / 2;
  int64_t halfCount = 1;
  for (int64_t d : halfDims) halfCount *= d;
  const int64_t counters = threefry ? (width == 64 ? n : halfCount) : (words + 3) / 4;

  RngBuilder b(c);
  ir::Value* key = b.reshape(b.slice(state, 0, 0, 1), {});
  ir::Value* counter = b.reshape(b.slice(state, 0, 1, 2), {});
  ir::Value* newCounter = b.binary(OpKind::Add, counter, b.scalar(DType::U64, counters));
  ir::Value* newState = b.op(OpKind::Concatenate, {b.reshape(key, {1}), b.reshape(newCounter, {1})},
                             state->type, ir::ConcatenateAttrs{0});
  if (n == 0) return {newState, b.splat(out.dtype, 0, out.dims)};

  ir::Value* bits = nullptr;
  if (threefry) {
    const std::vector<int64_t> v{counters};
    ir::Value* i = b.op(OpKind::Iota, {}, ir::Type{DType::U64, v}, ir::IotaAttrs{0});
    auto [x0, x1] = b.halves(b.binary(OpKind::Add, b.splat(counter, v), i));
    auto [k0, k1] = b.halves(key);
    auto [o0, o1] = b.threefry(x0, x1, k0, k1);
    if (width == 64) {
      ir::Value* hi =
          b.binary(OpKind::ShiftLeft, b.convert(o1, DType::U64), b.splat(DType::U64, 32, v));
      bits = b.binary(OpKind::Or, hi, b.convert(o0, DType::U64));
    } else {
      // o0 and o1 side by side in a new dimension after `split`, which then merges into it.
      std::vector<int64_t> column = halfDims, pair = halfDims, full = halfDims;
      column.insert(column.begin() + split + 1, 1);
      pair.insert(pair.begin() + split + 1, 2);
      full[split] *= 2;
      ir::Value* both =
          b.op(OpKind::Concatenate, {b.reshape(o0, column), b.reshape(o1, column)},
               ir::Type{DType::U32, pair}, ir::ConcatenateAttrs{static_cast<int64_t>(split) + 1});
      bits =
          b.reshape(b.slice(b.reshape(both, full), static_cast<int>(split), 0, dims[split]), {n});
    }
  } else {
    ir::Value* stream = philoxStream(b, key, counter, counters);
    if (width == 64) {
      ir::Value* pairs = b.reshape(stream, {2 * counters, 2});
      ir::Value* lo = b.convert(b.reshape(b.slice(pairs, 1, 0, 1), {2 * counters}), DType::U64);
      ir::Value* hi = b.convert(b.reshape(b.slice(pairs, 1, 1, 2), {2 * counters}), DType::U64);
      hi = b.binary(OpKind::ShiftLeft, hi, b.splat(DType::U64, 32, hi->type.dims));
      bits = b.binary(OpKind::Or, hi, lo);
    } else {
      bits = stream;
    }
  }
  if (bits->type.dims[0] != n) bits = b.slice(bits, 0, 0, n);
  const DType unsignedType = width == 8    ? DType::U8
                             : width == 16 ? DType::U16
                             : width == 32 ? DType::U32
                                           : DType::U64;
  if (unsignedType != bits->type.dtype) bits = b.convert(bits, unsignedType);
  bits = b.reshape(bits, out.dims);
  if (out.dtype != unsignedType) bits = b.op(OpKind::BitcastConvert, {bits}, out);
  return {newState, bits};
}

}  // namespace

void addRngBitGeneratorHandler(HandlerTable& t) { t["rng-bit-generator"] = rngBitGenerator; }

}  // namespace lf::frontend
