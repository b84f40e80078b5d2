int ok() { return 0; }
undeclared_type broken();
