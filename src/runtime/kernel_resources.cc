#include "runtime/kernel_resources.h"

#include <algorithm>
#include <cstring>
#include <optional>
#include <vector>

#include "runtime/nvrtc.h"

namespace lf::runtime {
namespace {

// ---- ptxas -v report ----

// The number right before `unit` in `line` ("Used 40 registers" -> 40 for " registers"), if any.
std::optional<int64_t> numberBefore(std::string_view line, std::string_view unit) {
  size_t at = line.find(unit);
  if (at == std::string_view::npos) return std::nullopt;
  size_t begin = at;
  while (begin > 0 && line[begin - 1] >= '0' && line[begin - 1] <= '9') --begin;
  if (begin == at || at - begin > 15) return std::nullopt;
  int64_t value = 0;
  for (size_t i = begin; i < at; ++i) value = value * 10 + (line[i] - '0');
  return value;
}

std::vector<std::string_view> splitLines(std::string_view text) {
  std::vector<std::string_view> lines;
  while (!text.empty()) {
    size_t end = text.find('\n');
    lines.push_back(text.substr(0, end));
    text = end == std::string_view::npos ? std::string_view() : text.substr(end + 1);
  }
  return lines;
}

}  // namespace

KernelResources parsePtxasReport(std::string_view log, std::string_view kernel) {
  KernelResources r;
  r.source = "ptxas";
  // ptxas reports entry by entry: "Compiling entry function 'K' for 'sm_90'", then "Function
  // properties for K" with the stack frame and spills on the next line, then "Used N registers,
  // ... N bytes smem". Non-inlined device functions get their own "Function properties" blocks,
  // so each number is taken only inside K's block.
  const std::string start = "Compiling entry function '" + std::string(kernel) + "'";
  const std::string properties = "Function properties for " + std::string(kernel);
  const std::vector<std::string_view> lines = splitLines(log);
  bool inside = false, found = false;
  for (size_t i = 0; i < lines.size(); ++i) {
    std::string_view line = lines[i];
    if (line.find("Compiling entry function '") != std::string_view::npos) {
      inside = line.find(start) != std::string_view::npos;
      if (inside) {
        found = true;
        if (size_t q = line.find("for '"); q != std::string_view::npos) {
          std::string_view rest = line.substr(q + 5);
          r.arch = std::string(rest.substr(0, rest.find('\'')));
        }
      }
      continue;
    }
    if (!inside) continue;
    size_t p = line.find(properties);
    if (p != std::string_view::npos && p + properties.size() == line.size() &&
        i + 1 < lines.size()) {
      std::string_view next = lines[i + 1];
      r.localBytes = numberBefore(next, " bytes stack frame").value_or(r.localBytes);
      r.spillStoreBytes = numberBefore(next, " bytes spill stores").value_or(r.spillStoreBytes);
      r.spillLoadBytes = numberBefore(next, " bytes spill loads").value_or(r.spillLoadBytes);
    }
    if (line.find("Used ") != std::string_view::npos) {
      if (auto regs = numberBefore(line, " registers")) r.registers = (int)*regs;
      // No "smem" in the line means the kernel declares no shared memory.
      r.sharedBytes = numberBefore(line, " bytes smem").value_or(0);
    }
  }
  if (!found || r.registers < 0) {
    r.message = "no ptxas report on kernel '" + std::string(kernel) + "' in the NVRTC log";
    return r;
  }
  if (r.localBytes < 0) r.localBytes = 0;  // ptxas leaves out the properties line of some entries
  r.ok = true;
  return r;
}

// ---- cubin (ELF) ----

namespace {

// EIATTR record kinds and formats of .nv.info sections: each record is a format byte, a kind
// byte, then 2 bytes that hold the value (EIFMT_HVAL, EIFMT_BVAL, EIFMT_NVAL) or, for
// EIFMT_SVAL, the size of the data that follows. Per-kernel values in the module-wide .nv.info
// start with the kernel's symbol index.
constexpr uint8_t kFmtSval = 4;
constexpr uint8_t kAttrMaxThreads = 0x05;  // in .nv.info.K: __launch_bounds__ x, y, z
constexpr uint8_t kAttrFrameSize = 0x11;   // in .nv.info: symbol, stack frame bytes
constexpr uint8_t kAttrRegCount = 0x2f;    // in .nv.info: symbol, registers per thread

// From sm_90 on, ptxas places the system's reserved shared memory (the `.nv.shared.reserved.0`
// section and the `.nv.reservedSmem.offset0` symbol) at the start of the kernel's own
// .nv.shared.K section, which is then 1 KiB larger than the declared arrays. ptxas's report counts
// only the declared ones, and so do we (cuFuncGetAttribute(SHARED_SIZE_BYTES) presumably too; not
// yet checked on a GPU).
constexpr int64_t kReservedSharedBytes = 1024;

struct Section {
  std::string_view name;
  uint32_t type = 0;
  uint64_t offset = 0, size = 0;
  uint32_t link = 0;
};

constexpr uint32_t kShtSymtab = 2, kShtNobits = 8;

template <class T>
T load(std::string_view bytes, uint64_t at) {
  T value;
  std::memcpy(&value, bytes.data() + at, sizeof(T));  // little-endian hosts only, as the ELF
  return value;
}

bool fits(std::string_view bytes, uint64_t offset, uint64_t size) {
  return offset <= bytes.size() && size <= bytes.size() - offset;
}

// A NUL-terminated name at `at` in a string table; empty when out of bounds or unterminated.
std::string_view nameAt(std::string_view table, uint64_t at) {
  if (at >= table.size()) return {};
  std::string_view rest = table.substr(at);
  size_t end = rest.find('\0');
  return end == std::string_view::npos ? std::string_view() : rest.substr(0, end);
}

struct Elf {
  std::string_view image;
  std::vector<Section> sections;
  std::string error;

  std::string_view contents(const Section& s) const {
    return s.type == kShtNobits ? std::string_view() : image.substr(s.offset, s.size);
  }
  const Section* find(std::string_view name) const {
    for (const Section& s : sections)
      if (s.name == name) return &s;
    return nullptr;
  }
};

Elf readElf(std::string_view image) {
  Elf elf;
  elf.image = image;
  if (image.size() < 64 || image.substr(0, 4) !=
                               "\x7f"
                               "ELF") {
    elf.error = "not an ELF image (" + std::to_string(image.size()) + " bytes)";
    return elf;
  }
  if (image[4] != 2 || image[5] != 1) {
    elf.error = "not a 64-bit little-endian ELF image";
    return elf;
  }
  const auto shoff = load<uint64_t>(image, 0x28);
  const auto shentsize = load<uint16_t>(image, 0x3a);
  const auto shnum = load<uint16_t>(image, 0x3c);
  const auto shstrndx = load<uint16_t>(image, 0x3e);
  if (shentsize < 64 || shstrndx >= shnum || !fits(image, shoff, uint64_t{shnum} * shentsize)) {
    elf.error = "truncated ELF image: the section table is cut off or malformed";
    return elf;
  }
  // Unused here, but the loader needs the segment table (ptxas writes it last): a cubin cut off
  // inside it would not load, so it is not taken as whole either.
  const auto phoff = load<uint64_t>(image, 0x20);
  const auto phentsize = load<uint16_t>(image, 0x36);
  const auto phnum = load<uint16_t>(image, 0x38);
  if (!fits(image, phoff, uint64_t{phnum} * phentsize)) {
    elf.error = "truncated ELF image: the segment table is cut off";
    return elf;
  }
  for (uint16_t i = 0; i < shnum; ++i) {
    const uint64_t at = shoff + uint64_t{i} * shentsize;
    Section s;
    s.type = load<uint32_t>(image, at + 4);
    s.offset = load<uint64_t>(image, at + 0x18);
    s.size = load<uint64_t>(image, at + 0x20);
    s.link = load<uint32_t>(image, at + 0x28);
    if (s.type != kShtNobits && !fits(image, s.offset, s.size)) {
      elf.error = "truncated ELF image: section " + std::to_string(i) + " lies past its end";
      return elf;
    }
    elf.sections.push_back(s);
  }
  const std::string_view names = elf.contents(elf.sections[shstrndx]);
  for (uint16_t i = 0; i < shnum; ++i)
    elf.sections[i].name = nameAt(names, load<uint32_t>(image, shoff + uint64_t{i} * shentsize));
  return elf;
}

// The symbol-table index of the function `kernel`, or -1.
int64_t symbolIndex(const Elf& elf, std::string_view kernel) {
  for (const Section& s : elf.sections) {
    if (s.type != kShtSymtab || s.link >= elf.sections.size()) continue;
    const std::string_view symbols = elf.contents(s);
    const std::string_view names = elf.contents(elf.sections[s.link]);
    for (uint64_t i = 0; (i + 1) * 24 <= symbols.size(); ++i) {
      const uint8_t type = load<uint8_t>(symbols, i * 24 + 4) & 0xf;  // STT_FUNC is 2
      if (type == 2 && nameAt(names, load<uint32_t>(symbols, i * 24)) == kernel) return (int64_t)i;
    }
  }
  return -1;
}

struct Record {
  uint8_t kind;
  std::string_view data;  // EIFMT_SVAL only
};

// The records of one .nv.info section; false when one runs past its end or has an unknown format.
bool readRecords(std::string_view info, std::vector<Record>& records) {
  uint64_t at = 0;
  while (at + 4 <= info.size()) {
    const uint8_t format = load<uint8_t>(info, at), kind = load<uint8_t>(info, at + 1);
    if (format < 1 || format > 4) return false;
    if (format != kFmtSval) {
      records.push_back({kind, {}});
      at += 4;
      continue;
    }
    const uint16_t size = load<uint16_t>(info, at + 2);
    if (!fits(info, at + 4, size)) return false;
    records.push_back({kind, info.substr(at + 4, size)});
    at += 4 + uint64_t{size};
  }
  return at == info.size();
}

}  // namespace

KernelResources readCubinResources(std::string_view cubin, std::string_view kernel) {
  KernelResources r;
  r.source = "cubin";
  Elf elf = readElf(cubin);
  if (!elf.error.empty()) {
    r.message = "cannot read the cubin: " + elf.error;
    return r;
  }
  const int64_t symbol = symbolIndex(elf, kernel);
  if (symbol < 0) {
    r.message = "the cubin has no kernel named '" + std::string(kernel) + "'";
    return r;
  }
  const std::string name(kernel);
  std::vector<Record> records;
  const Section* moduleInfo = elf.find(".nv.info");
  const Section* kernelInfo = elf.find(".nv.info." + name);
  if ((moduleInfo && !readRecords(elf.contents(*moduleInfo), records)) ||
      (kernelInfo && !readRecords(elf.contents(*kernelInfo), records))) {
    r.message = "cannot read the cubin: a .nv.info record is truncated or of an unknown format";
    return r;
  }
  for (const Record& rec : records) {
    const size_t words = rec.data.size() / 4;
    auto word = [&](size_t i) { return load<uint32_t>(rec.data, i * 4); };
    const bool ours = words >= 2 && word(0) == (uint32_t)symbol;
    if (rec.kind == kAttrRegCount && ours) r.registers = (int)word(1);
    if (rec.kind == kAttrFrameSize && ours) r.localBytes = word(1);
    if (rec.kind == kAttrMaxThreads && words == 3) {
      // Only .nv.info.K holds this one, so it is K's; x * y * z, each at most 1024.
      const uint64_t product =
          uint64_t{std::min(word(0), 1024u)} * std::min(word(1), 1024u) * std::min(word(2), 1024u);
      r.maxThreadsPerBlock = (int)std::min<uint64_t>(product, 1u << 30);
      r.maxThreadsReason = "launch bounds";
    }
  }
  if (r.registers < 0) {
    r.message = "the cubin records no register count for '" + name + "'";
    return r;
  }
  if (r.localBytes < 0) r.localBytes = 0;
  r.sharedBytes = 0;
  if (const Section* shared = elf.find(".nv.shared." + name)) {
    const bool reserved = std::any_of(elf.sections.begin(), elf.sections.end(), [](auto& s) {
      return s.name.starts_with(".nv.shared.reserved.");
    });
    const int64_t size = (int64_t)std::min<uint64_t>(shared->size, INT64_MAX);
    r.sharedBytes = reserved && size >= kReservedSharedBytes ? size - kReservedSharedBytes : size;
  }
  r.ok = true;
  return r;
}

int maxThreadsForRegisters(int registers) {
  constexpr int kMaxThreads = 1024, kRegistersPerSubPartition = 65536 / 4, kGranule = 256;
  if (registers <= 0) return kMaxThreads;
  const int perWarp = (registers * 32 + kGranule - 1) / kGranule * kGranule;
  return std::min(kMaxThreads, kRegistersPerSubPartition / perWarp * 4 * 32);
}

KernelResources cudaKernelResources(const std::string& source, const std::string& kernel,
                                    const std::string& arch) {
  KernelResources r;
  r.arch = arch;
  if (!nvrtcAvailable()) {
    r.message = compileCudaToCubin("", arch).log;  // says where it looked
    return r;
  }
  NvrtcOutput out = compileCudaToCubin(source, arch, {"--ptxas-options=-v"});
  // An NVRTC that refuses the option still writes a cubin without it; the cubin alone then tells.
  if (!out.ok) out = compileCudaToCubin(source, arch);
  if (!out.ok) {
    r.message = "NVRTC could not compile the kernel for " + arch + ":\n" + out.log;
    return r;
  }
  KernelResources fromCubin = readCubinResources(out.cubin, kernel);
  r = parsePtxasReport(out.log, kernel);
  if (!r.ok) {
    if (!fromCubin.ok) {
      fromCubin.message = r.message + "; " + fromCubin.message;
      fromCubin.arch = arch;
      return fromCubin;
    }
    r = fromCubin;
  } else if (fromCubin.maxThreadsPerBlock > 0) {
    r.maxThreadsPerBlock = fromCubin.maxThreadsPerBlock;
    r.maxThreadsReason = fromCubin.maxThreadsReason;
  }
  r.arch = arch;
  const int byRegisters = maxThreadsForRegisters(r.registers);
  if (r.maxThreadsPerBlock < 0 || byRegisters < r.maxThreadsPerBlock) {
    r.maxThreadsPerBlock = byRegisters;
    r.maxThreadsReason = "register limit";
  }
  return r;
}

std::string formatKernelResources(const KernelResources& r) {
  if (!r.ok) {
    std::string why = r.message.substr(0, r.message.find('\n'));
    return "cuda resources" + (r.arch.empty() ? "" : " (" + r.arch + ")") + ": unavailable: " + why;
  }
  std::string line = "cuda resources (" + r.arch + ", from " + r.source +
                     "): " + std::to_string(r.registers) + " registers/thread, " +
                     std::to_string(r.sharedBytes) + " B shared, " + std::to_string(r.localBytes) +
                     " B local";
  if (r.spillStoreBytes >= 0)
    line += " (" + std::to_string(r.spillStoreBytes) + " B spill stores, " +
            std::to_string(r.spillLoadBytes) + " B spill loads)";
  if (r.maxThreadsPerBlock > 0)
    line += ", max " + std::to_string(r.maxThreadsPerBlock) + " threads/block (" +
            r.maxThreadsReason + ")";
  return line;
}

}  // namespace lf::runtime
