// The program's own header, alike: traversed as before.
#pragma once
inline int ownPick(bool B) {
  if (B) {
    return 1;
  } else {
    return 2;
  }
}
