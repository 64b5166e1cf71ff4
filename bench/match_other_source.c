/* match_other_source — see matching.h. */
#include "matching.h"

int main(int argc, char **argv) { return match_main(argc, argv, "match_other_source", MATCH_OTHER_SOURCE); }
