/* world.c — storage for the per-peer transport table of world.h. */
#include "core/world.h"

fm_net **fm_peer_net;
