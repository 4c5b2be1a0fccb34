/* The legacy 8259 pair (pic.c). */
#ifndef GMK_BOARDS_PLATFORM_PC_PIC_H
#define GMK_BOARDS_PLATFORM_PC_PIC_H

#include <stdint.h>

/* Move the PICs' vectors to base..base+15 and mask every line. */
void pic_disable(uint8_t vector_base);

#endif
