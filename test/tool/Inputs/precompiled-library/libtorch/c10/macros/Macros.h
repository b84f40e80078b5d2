// Marks this folder as a LibTorch include tree (libtorch/ProgramCode.h).
