"""Prints a function whose first loop runs once and whose last loop uses the
same K index constants: inlining the first loop (--accel-pipeline-dma does,
upstream's promoteIfSingleIteration) lets cse replace the last loop's
constants with the first loop's, which are then live across everything in
between: N buffers loaded by DMAs all in flight at once (N addresses and N
tokens live). Usage: single-trip-constants.py N K"""
import sys

n, k = int(sys.argv[1]), int(sys.argv[2])
vmem = "#accel.space<vmem>"
hbm = "#accel.space<hbm>"
tile = "memref<1x8xf32, %s>" % vmem
big = "memref<%dx8xf32, %s>" % (k + 2, vmem)
row = "memref<1x8xf32, strided<[8, 1], offset: ?>, %s>" % vmem
view = "memref<1x8xf32, strided<[8, 1], offset: %d>, " + hbm + ">"


print("func.func @single_trip(%%x: memref<%dx8xf32, %s>," % (n, hbm))
print("    %%y: memref<1x8xf32, %s> {accel.init = \"zero\"}) {" % hbm)
print("  %%big = accel.alloc : %s" % big)
print("  %%acc = accel.alloc : %s" % tile)
print("  accel.vfill %%acc, 0.0 : %s" % tile)
print("  %c0 = arith.constant 0 : index")
print("  %c1 = arith.constant 1 : index")
print("  %c2 = arith.constant 2 : index")
for loop, (ub, name) in enumerate([("%c1", "a"), ("%c2", "b")]):
    if loop == 1:
        # Every load in flight at once: N tokens beside N addresses.
        for i in range(n):
            print("  %%v%d = accel.alloc : %s" % (i, tile))
            print("  %%s%d = memref.subview %%x[%d, 0] [1, 8] [1, 1] : "
                  "memref<%dx8xf32, %s> to %s"
                  % (i, i, n, hbm, view % (8 * i)))
            print("  %%t%d = accel.dma_start %%s%d, %%v%d : %s, %s"
                  % (i, i, i, view % (8 * i), tile))
        for i in range(n):
            print("  accel.dma_wait %%t%d" % i)
    if loop == 1:
        for j in range(k):
            print("  %%k%d_%s = arith.constant %d : index" % (j, name, j + 1))
    print("  scf.for %%i = %%c0 to %s step %%c1 {" % ub)
    if loop == 0:
        for j in range(k):
            print("    %%k%d_%s = arith.constant %d : index" % (j, name, j + 1))
    for j in range(k):
        print("    %%r%d = arith.addi %%i, %%k%d_%s : index" % (j, j, name))
        print("    %%w%d = memref.subview %%big[%%r%d, 0] [1, 8] [1, 1] : "
              "%s to %s" % (j, j, big, row))
        print("    accel.vfill %%w%d, %d.0 : %s" % (j, loop + 1, row))
    print("  }")
for i in range(n):
    print("  accel.vadd %%acc, %%v%d, %%acc : %s, %s, %s" % (i, tile, tile, tile))
print("  %%ts = accel.dma_start %%acc, %%y : %s, memref<1x8xf32, %s>" % (tile, hbm))
print("  accel.dma_wait %ts")
print("  return")
print("}")
