//===- ResultCache.cpp ----------------------------------------------------===//
#include "tool/cache/ResultCache.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Chrono.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Support/xxhash.h"

using llvm::StringRef;
namespace fs = llvm::sys::fs;

namespace torch_tidy {

static constexpr StringRef Magic = "torch-tidy-cache 1\n";

std::string hashHex(StringRef Data) {
  llvm::XXH128_hash_t H = llvm::xxh3_128bits(llvm::arrayRefFromStringRef(Data));
  std::string S;
  llvm::raw_string_ostream OS(S);
  OS << llvm::format_hex_no_prefix(H.high64, 16)
     << llvm::format_hex_no_prefix(H.low64, 16);
  return S;
}

std::string FileHashes::get(StringRef Path) {
  {
    std::lock_guard<std::mutex> L(Lock);
    auto It = Known.find(Path);
    if (It != Known.end())
      return It->second;
  }
  auto Buf = llvm::MemoryBuffer::getFile(Path, /*IsText=*/false,
                                         /*RequiresNullTerminator=*/false);
  std::string H = Buf ? hashHex((*Buf)->getBuffer()) : "";
  std::lock_guard<std::mutex> L(Lock);
  Known[Path] = H;
  return H;
}

std::string ResultCache::pathOf(StringRef Key) const {
  llvm::SmallString<256> P(Dir);
  llvm::sys::path::append(P, Key.take_front(2), Key.str() + ".entry");
  return P.str().str();
}

namespace {
/// Reads the fields of an entry in order; any mismatch makes it invalid.
class EntryReader {
public:
  explicit EntryReader(StringRef Text) : Rest(Text) {}
  bool ok() const { return Ok; }
  StringRef line() {
    auto [L, R] = Rest.split('\n');
    if (L.size() == Rest.size())
      Ok = false;
    Rest = R;
    return L;
  }
  /// "NAME VALUE" on one line: VALUE.
  StringRef field(StringRef Name) {
    StringRef L = line();
    if (!L.consume_front(Name) || !L.consume_front(" "))
      Ok = false;
    return L;
  }
  /// "NAME LENGTH" then LENGTH bytes and a newline.
  std::string blob(StringRef Name) {
    size_t N = 0;
    if (field(Name).getAsInteger(10, N) || N + 1 > Rest.size() ||
        Rest[N] != '\n') {
      Ok = false;
      return "";
    }
    std::string B = Rest.take_front(N).str();
    Rest = Rest.drop_front(N + 1);
    return B;
  }
  StringRef rest() const { return Rest; }

private:
  StringRef Rest;
  bool Ok = true;
};

void writeBlob(llvm::raw_ostream &OS, StringRef Name, StringRef B) {
  OS << Name << " " << B.size() << "\n" << B << "\n";
}
} // namespace

std::optional<CachedResult> ResultCache::lookup(StringRef Key,
                                                FileHashes &Hashes) {
  std::string Path = pathOf(Key);
  auto Buf = llvm::MemoryBuffer::getFile(Path, /*IsText=*/false,
                                         /*RequiresNullTerminator=*/false);
  if (!Buf)
    return std::nullopt;
  StringRef Text = (*Buf)->getBuffer();
  // The checksum covers everything before its own line.
  size_t SumAt = Text.rfind("sum ");
  if (!Text.starts_with(Magic) || SumAt == StringRef::npos ||
      Text.drop_front(SumAt) != "sum " + hashHex(Text.take_front(SumAt)) + "\n")
    return std::nullopt;
  EntryReader R(Text.take_front(SumAt).drop_front(Magic.size()));
  if (R.field("key") != Key)
    return std::nullopt;
  unsigned NDeps = 0;
  if (R.field("deps").getAsInteger(10, NDeps))
    return std::nullopt;
  for (unsigned I = 0; I < NDeps && R.ok(); ++I) {
    auto [Hash, File] = R.line().split(' ');
    if (Hash.empty() || Hashes.get(File) != Hash)
      return std::nullopt;
  }
  CachedResult Result;
  if (R.field("exit").getAsInteger(10, Result.ExitCode))
    return std::nullopt;
  Result.Out = R.blob("out");
  Result.Err = R.blob("err");
  Result.ExportedFixes = R.blob("fixes");
  if (!R.ok() || !R.rest().empty())
    return std::nullopt;
  markRecentlyUsed(Path); // trim() evicts by modification time
  return Result;
}

void ResultCache::store(StringRef Key, llvm::ArrayRef<std::string> Deps,
                        const CachedResult &R, FileHashes &Hashes) {
  std::string Body;
  llvm::raw_string_ostream OS(Body);
  OS << Magic << "key " << Key << "\n";
  std::vector<std::pair<std::string, std::string>> Hashed;
  for (const std::string &D : Deps) {
    std::string H = Hashes.get(D);
    if (H.empty() || StringRef(D).contains('\n'))
      return; // a dependency that cannot be read cannot be checked later
    Hashed.emplace_back(std::move(H), D);
  }
  OS << "deps " << Hashed.size() << "\n";
  for (const auto &[H, D] : Hashed)
    OS << H << " " << D << "\n";
  OS << "exit " << R.ExitCode << "\n";
  writeBlob(OS, "out", R.Out);
  writeBlob(OS, "err", R.Err);
  writeBlob(OS, "fixes", R.ExportedFixes);
  std::string Sum = hashHex(Body); // before its own line is written
  OS << "sum " << Sum << "\n";

  std::string Path = pathOf(Key);
  if (fs::create_directories(llvm::sys::path::parent_path(Path)))
    return;
  (void)writeFileAtomically(Path, Body);
}

bool writeFileAtomically(StringRef Path, StringRef Data) {
  // Written under a unique name, then renamed: readers see all or nothing.
  llvm::SmallString<256> Tmp;
  int FD = -1;
  if (fs::createUniqueFile(Path + ".tmp-%%%%%%%%", FD, Tmp))
    return false;
  {
    llvm::raw_fd_ostream Out(FD, /*shouldClose=*/true);
    Out << Data;
    Out.close();
    if (Out.has_error()) {
      Out.clear_error();
      (void)fs::remove(Tmp);
      return false;
    }
  }
  if (!fs::rename(Tmp, Path))
    return true;
  (void)fs::remove(Tmp);
  return false;
}

void markRecentlyUsed(StringRef Path) {
  int FD = -1;
  if (!fs::openFileForWrite(Path, FD, fs::CD_OpenExisting, fs::OF_Append)) {
    (void)fs::setLastAccessAndModificationTime(
        FD, std::chrono::system_clock::now());
    (void)llvm::sys::Process::SafelyCloseFileDescriptor(FD);
  }
}

void ResultCache::trim() {
  struct Entry {
    std::string Path;
    uint64_t Size;
    llvm::sys::TimePoint<> Used;
  };
  std::vector<Entry> Entries;
  uint64_t Total = 0;
  std::error_code EC;
  for (fs::recursive_directory_iterator It(Dir, EC), End; It != End && !EC;
       It.increment(EC)) {
    StringRef Ext = llvm::sys::path::extension(It->path());
    if (Ext != ".entry" && Ext != ".pch") // results, shared preambles
      continue;
    fs::file_status St;
    if (fs::status(It->path(), St) || St.type() != fs::file_type::regular_file)
      continue;
    Entries.push_back({It->path(), St.getSize(), St.getLastModificationTime()});
    Total += St.getSize();
  }
  if (Total <= MaxBytes)
    return;
  llvm::sort(Entries, [](const Entry &A, const Entry &B) {
    return std::tie(A.Used, A.Path) < std::tie(B.Used, B.Path);
  });
  for (const Entry &E : Entries) {
    if (Total <= MaxBytes)
      break;
    if (fs::remove(E.Path))
      continue;
    Total -= E.Size;
    if (StringRef(E.Path).ends_with(".pch")) // and the header it was built of
      (void)fs::remove(StringRef(E.Path).drop_back(3).str() + "h");
  }
}

std::vector<std::string> dependencyFileArgs(StringRef DepFile) {
  std::vector<std::string> Args;
  for (StringRef A : {StringRef("-dependency-file"), DepFile, StringRef("-MT"),
                      StringRef("unit"), StringRef("-sys-header-deps")})
    Args.push_back(("--extra-arg=-Xclang=" + A).str());
  return Args;
}

std::optional<std::vector<std::string>> readDependencyFile(StringRef Path,
                                                           StringRef Dir) {
  auto Buf = llvm::MemoryBuffer::getFile(Path);
  if (!Buf)
    return std::nullopt;
  StringRef Text = (*Buf)->getBuffer();
  size_t Colon = Text.find(": ");
  if (Colon == StringRef::npos)
    return std::nullopt;
  std::vector<std::string> Files;
  std::string Cur;
  auto Flush = [&] {
    if (Cur.empty())
      return;
    llvm::SmallString<256> Abs(Cur);
    if (llvm::sys::path::is_relative(Abs))
      llvm::sys::path::make_absolute(Dir, Abs);
    // Not "..": through a symlink (/lib -> usr/lib) it is not lexical.
    llvm::sys::path::remove_dots(Abs, /*remove_dot_dot=*/false);
    Files.push_back(Abs.str().str());
    Cur.clear();
  };
  StringRef T = Text.drop_front(Colon + 1);
  for (size_t I = 0; I < T.size(); ++I) {
    char Ch = T[I];
    if (Ch == '\\' && I + 1 < T.size() && T[I + 1] == '\n') {
      Flush();
      ++I;
    } else if (Ch == '\\' && I + 1 < T.size() &&
               (T[I + 1] == ' ' || T[I + 1] == '#')) {
      Cur += T[++I];
    } else if (Ch == '$' && I + 1 < T.size() && T[I + 1] == '$') {
      Cur += '$';
      ++I;
    } else if (Ch == ' ' || Ch == '\t' || Ch == '\n' || Ch == '\r') {
      Flush();
    } else {
      Cur += Ch;
    }
  }
  Flush();
  llvm::sort(Files);
  Files.erase(std::unique(Files.begin(), Files.end()), Files.end());
  return Files;
}

std::optional<uint64_t> parseSize(StringRef S) {
  uint64_t Unit = 1;
  StringRef Num = S;
  if (!S.empty()) {
    switch (llvm::toLower(S.back())) {
    case 'k':
      Unit = 1ull << 10;
      break;
    case 'm':
      Unit = 1ull << 20;
      break;
    case 'g':
      Unit = 1ull << 30;
      break;
    default:
      break;
    }
    if (Unit != 1)
      Num = S.drop_back();
  }
  uint64_t N = 0;
  if (Num.empty() || Num.getAsInteger(10, N) || N == 0 || N > UINT64_MAX / Unit)
    return std::nullopt;
  return N * Unit;
}

} // namespace torch_tidy
