/* match_same_source — see matching.h. */
#include "matching.h"

int main(int argc, char **argv) { return match_main(argc, argv, "match_same_source", MATCH_SAME_SOURCE); }
