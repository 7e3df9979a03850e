// SPDX-License-Identifier: GPL-2.0-only
/*
 * main() for a fuzz target built without libFuzzer (-DDMF_FUZZ_STANDALONE,
 * gcc): feed each file named on the command line to the target once.
 */
#ifdef DMF_FUZZ_STANDALONE
#include <stdint.h>
#include <stdio.h>

#define FZ_MAIN_MAX	70000

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int main(int argc, char **argv)
{
	static uint8_t buf[FZ_MAIN_MAX];
	int i;

	for (i = 1; i < argc; i++) {
		FILE *f = fopen(argv[i], "rb");
		size_t n;

		if (!f) {
			perror(argv[i]);
			return 2;
		}
		n = fread(buf, 1, sizeof(buf), f);
		fclose(f);
		LLVMFuzzerTestOneInput(buf, n);
	}
	printf("Done %d files\n", argc - 1);
	return 0;
}
#endif
