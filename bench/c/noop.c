/* An empty function, called through ctypes with each kernel's argument list: the cost of
   the call itself, measured alongside the kernels and subtracted from their times
   (bench/kernels.py). */
void noop(void) {}
