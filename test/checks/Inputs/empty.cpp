// An empty translation unit: option errors need no LibTorch parse.
