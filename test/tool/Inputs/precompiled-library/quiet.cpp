int main() { makeLibraryDerived(); }
