// A library header (reached with -isystem) whose class template has a
// virtual member that does not compile for any argument: defining the
// vtable of one of its specializations fails.
#pragma once
template <class T> struct Base {
  virtual ~Base() = default;
  virtual void broken() {
    static_assert(sizeof(T) == 0, "vtable defined");
  }
};
// The library's own code uses the vtable of Base<int>.
struct LibraryDerived : Base<int> {};
inline LibraryDerived makeLibraryDerived() { return LibraryDerived(); }
