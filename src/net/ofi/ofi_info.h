/* ofi_info.h — the OFI section of fabmpi_info; defined whether or not this
 * build has libfabric (absent.c then says so). */
#ifndef FM_NET_OFI_OFI_INFO_H
#define FM_NET_OFI_OFI_INFO_H

#include <stdio.h>

/* Print libfabric's version, the providers that fit and the one each
 * placement (one node, across nodes) would choose under the current knobs. */
void fm_ofi_print_info(FILE *out);

#endif
