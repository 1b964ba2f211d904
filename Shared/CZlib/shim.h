// zlib (Debian's zlib1g-dev): inflate of gzip-compressed reference data.
#include <zlib.h>
