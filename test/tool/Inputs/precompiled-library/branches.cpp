int main() { return libraryPick(true) + ownPick(false); }
