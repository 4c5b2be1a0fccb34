/*
 * tools/gmk-gdb.py, inline in the ELF's .debug_gdb_scripts section, so
 * that gdb loads `info goroutines` and friends with the kernel's symbols
 * (once its auto-load safe-path allows the directory; make debug prints the
 * line). Entry format (gdb manual, "The .debug_gdb_scripts section"): byte
 * 4 = inline Python, the script's name on the first line, the text, NUL.
 * Not loaded into memory (no "a" flag), so it costs the image nothing.
 * Retained ("R"): the hosted board links with the toolchain's own script
 * and --gc-sections, which would drop a section nothing refers to (the
 * other boards' scripts KEEP it). Assembler directives only, the same on
 * every arch.
 */
	.pushsection .debug_gdb_scripts, "MSR", %progbits, 1
	.byte	4
	.ascii	"gmk-gdb.py\n"
	.incbin	"tools/gmk-gdb.py"
	.byte	0
	.popsection
	.section .note.GNU-stack, "", %progbits
