// Umbrella header: libidn2 (IDNA 2008 with UTS #46 processing) as installed by
// Debian's libidn2-dev. Only ReachdService's IDNA.swift imports it; every
// function it uses is a plain C function, so no shim is needed.
#include <idn2.h>
