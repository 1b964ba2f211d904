// libxcrypt (Debian's libcrypt1): crypt_rn and crypt_gensalt_rn with bcrypt ("$2b$") support.
#include <crypt.h>
