/*
 * Prints the C compiler's view of include/isthmus.h in the format of
 * isthmus_layout_manifest(), then the value of every integer #define.
 *
 * tests/header_contract.rs generates the two included lists from the header, so
 * a struct, field or constant added there is probed without editing this file:
 *   probe_structs.h:   PROBE_STRUCT(tag) PROBE_FIELD(tag, field)... PROBE_END()
 *   probe_constants.h: PROBE_CONSTANT(NAME)...
 * Build: gcc -std=c11 -Wall -Wextra -Werror -pedantic -Iinclude -I<dir of lists>
 */
#include <stddef.h>
#include <stdio.h>

#include "isthmus.h"

/* The Arrow C Data Interface fixes these sizes on 64-bit platforms. */
_Static_assert(sizeof(struct ArrowSchema) == 72, "struct ArrowSchema must be 72 bytes");
_Static_assert(sizeof(struct ArrowArray) == 80, "struct ArrowArray must be 80 bytes");
_Static_assert(sizeof(isthmus_error) == 8 + ISTHMUS_ERROR_MESSAGE_CAPACITY,
               "isthmus_error must have no padding");

#define PROBE_STRUCT(tag) \
    printf("%s %zu %zu", #tag, sizeof(struct tag), (size_t)_Alignof(struct tag));
#define PROBE_FIELD(tag, field) printf(" %s@%zu", #field, offsetof(struct tag, field));
#define PROBE_END() printf("\n");
#define PROBE_CONSTANT(name) printf("%s %lld\n", #name, (long long)(name));

int main(void) {
#include "probe_structs.h"
    printf("--\n");
#include "probe_constants.h"
    return 0;
}
