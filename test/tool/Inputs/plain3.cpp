int plain3() { return 3; }
