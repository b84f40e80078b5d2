int plain5() { return 5; }
