#ifndef PERFGATE_MACHINEID_H
#define PERFGATE_MACHINEID_H

/*
 * The machine a history record was measured on (perfgate(1), history):
 * "m-" and 16 hex digits of the SHA-256 of the CPU model, the kernel's
 * release and architecture and the number of CPUs online, or the name
 * PERFGATE_MACHINE gives. desc is those facts for a person. Returns NULL,
 * or why PERFGATE_MACHINE cannot be a name.
 */
enum { MACHINE_ID_MAX = 64, MACHINE_DESC_MAX = 256 };
const char *machine_id(char id[MACHINE_ID_MAX + 1], char desc[MACHINE_DESC_MAX]);

#endif
