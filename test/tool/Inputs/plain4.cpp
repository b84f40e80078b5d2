int plain4() { return 4; }
