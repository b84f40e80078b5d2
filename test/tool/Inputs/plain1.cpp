int plain1() { return 1; }
