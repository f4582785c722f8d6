// .npz archives through libzip: every member "<name>.npy" is one array (see npy.cc).
#include "runtime/npz.h"

#include <zip.h>

#include <algorithm>
#include <memory>
#include <optional>

namespace lf::runtime {

namespace {

std::string zipErrorText(int code) {
  zip_error_t error;
  zip_error_init_with_code(&error, code);
  std::string text = zip_error_strerror(&error);
  zip_error_fini(&error);
  return text;
}

struct ArchiveCloser {
  void operator()(zip_t* archive) const { zip_discard(archive); }
};
struct FileCloser {
  void operator()(zip_file_t* file) const { zip_fclose(file); }
};
using Archive = std::unique_ptr<zip_t, ArchiveCloser>;
using MemberFile = std::unique_ptr<zip_file_t, FileCloser>;

// Reads a member in chunks rather than trusting the size in the (possibly corrupt) directory,
// so that a damaged archive cannot make us allocate more than the data it really holds.
std::string readMember(zip_t* archive, zip_uint64_t index, const std::string& what) {
  MemberFile file(zip_fopen_index(archive, index, 0));
  if (!file) throw NpzError(what + ": cannot open: " + zip_strerror(archive));
  std::string bytes;
  char chunk[1 << 16];
  for (;;) {
    zip_int64_t n = zip_fread(file.get(), chunk, sizeof chunk);
    if (n < 0) throw NpzError(what + ": cannot read: " + zip_file_strerror(file.get()));
    if (n == 0) break;
    bytes.append(chunk, static_cast<size_t>(n));
  }
  return bytes;
}

bool endsWith(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

// "input_12" -> 12 for prefix "input_"; nullopt for any other name.
std::optional<size_t> numberedIndex(const std::string& name, const std::string& prefix) {
  if (name.rfind(prefix, 0) != 0 || name.size() == prefix.size()) return std::nullopt;
  const std::string digits = name.substr(prefix.size());
  if (!std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; }) ||
      digits.size() > 9)
    return std::nullopt;
  return static_cast<size_t>(std::stoul(digits));
}

}  // namespace

NamedArrays readNpz(const std::string& path) {
  int errorCode = 0;
  Archive archive(zip_open(path.c_str(), ZIP_RDONLY | ZIP_CHECKCONS, &errorCode));
  if (!archive)
    throw NpzError(path + ": cannot read as an .npz (zip) archive: " + zipErrorText(errorCode));
  NamedArrays arrays;
  const zip_int64_t count = zip_get_num_entries(archive.get(), 0);
  for (zip_int64_t i = 0; i < count; ++i) {
    const char* rawName = zip_get_name(archive.get(), static_cast<zip_uint64_t>(i), 0);
    if (!rawName) throw NpzError(path + ": " + zip_strerror(archive.get()));
    std::string name = rawName;
    if (endsWith(name, "/")) continue;  // a directory entry
    const std::string what = path + ": array '" + name + "'";
    std::string bytes = readMember(archive.get(), static_cast<zip_uint64_t>(i), what);
    if (endsWith(name, ".npy")) name.resize(name.size() - 4);
    arrays.emplace_back(name, parseNpy(bytes, what));
  }
  return arrays;
}

void writeNpz(const std::string& path, const NamedArrays& arrays) {
  int errorCode = 0;
  Archive archive(zip_open(path.c_str(), ZIP_CREATE | ZIP_TRUNCATE, &errorCode));
  if (!archive) throw NpzError(path + ": cannot create: " + zipErrorText(errorCode));
  // libzip reads the buffers only in zip_close, so they must outlive it; sized up front so that
  // no std::string moves (and moves a small-string buffer) after its pointer was handed over.
  std::vector<std::string> buffers(arrays.size());
  for (size_t i = 0; i < arrays.size(); ++i) {
    const auto& [name, array] = arrays[i];
    buffers[i] = serializeNpy(array);
    zip_source_t* source =
        zip_source_buffer(archive.get(), buffers[i].data(), buffers[i].size(), 0);
    if (!source) throw NpzError(path + ": " + zip_strerror(archive.get()));
    const std::string member = name + ".npy";
    zip_int64_t index = zip_file_add(archive.get(), member.c_str(), source, ZIP_FL_ENC_UTF_8);
    if (index < 0) {
      zip_source_free(source);
      throw NpzError(path + ": cannot add '" + member + "': " + zip_strerror(archive.get()));
    }
    if (zip_set_file_compression(archive.get(), static_cast<zip_uint64_t>(index), ZIP_CM_STORE,
                                 0) != 0)
      throw NpzError(path + ": " + zip_strerror(archive.get()));
  }
  if (zip_close(archive.get()) != 0)
    throw NpzError(path + ": cannot write: " + zip_strerror(archive.get()));
  archive.release();  // zip_close freed it
}

std::vector<HostArray> numberedArrays(const NamedArrays& arrays, const std::string& prefix,
                                      const std::string& path) {
  std::vector<std::optional<HostArray>> slots;
  for (const auto& [name, array] : arrays) {
    if (auto i = numberedIndex(name, prefix)) {
      if (*i >= arrays.size())
        throw NpzError(path + ": '" + name + "' but only " + std::to_string(arrays.size()) +
                       " arrays");
      if (slots.size() <= *i) slots.resize(*i + 1);
      slots[*i] = array;
    }
  }
  std::vector<HostArray> result;
  for (size_t i = 0; i < slots.size(); ++i) {
    if (!slots[i])
      throw NpzError(path + ": has " + prefix + std::to_string(slots.size() - 1) + " but no " +
                     prefix + std::to_string(i));
    result.push_back(*slots[i]);
  }
  return result;
}

}  // namespace lf::runtime
