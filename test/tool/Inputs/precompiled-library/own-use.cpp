struct MainDerived : Base<char> {};
int main() {
  MainDerived D;
  (void)D;
}
