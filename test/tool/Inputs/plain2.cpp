int plain2() { return 2; }
