/* match_wildcard — see matching.h. */
#include "matching.h"

int main(int argc, char **argv) { return match_main(argc, argv, "match_wildcard", MATCH_WILDCARD); }
