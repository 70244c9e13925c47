"""Prints a function that loads N row tiles into N VMEM buffers (each DMA
waited right after its ISSUE) and sums them afterwards: every buffer's
address is live until the sums, so sinking every WAIT to its first use, or
hoisting every ISSUE, adds N live tokens. Usage: many-loads.py N"""
import sys

n = int(sys.argv[1])
vmem = "#accel.space<vmem>"
hbm = "#accel.space<hbm>"
tile = "memref<1x8xf32, %s>" % vmem
view = "memref<1x8xf32, strided<[8, 1], offset: %d>, " + hbm + ">"
print("func.func @many_loads(%%x: memref<%dx8xf32, %s>," % (n, hbm))
print("    %%y: memref<1x8xf32, %s> {accel.init = \"zero\"}) {" % hbm)
print("  %%acc = accel.alloc : %s" % tile)
print("  accel.vfill %%acc, 0.0 : %s" % tile)
for i in range(n):
    print("  %%v%d = accel.alloc : %s" % (i, tile))
    print("  %%s%d = memref.subview %%x[%d, 0] [1, 8] [1, 1] : memref<%dx8xf32, %s> to %s"
          % (i, i, n, hbm, view % (8 * i)))
    print("  %%t%d = accel.dma_start %%s%d, %%v%d : %s, %s"
          % (i, i, i, view % (8 * i), tile))
    print("  accel.dma_wait %%t%d" % i)
for i in range(n):
    print("  accel.vadd %%acc, %%v%d, %%acc : %s, %s, %s" % (i, tile, tile, tile))
print("  %%ts = accel.dma_start %%acc, %%y : %s, memref<1x8xf32, %s>" % (tile, hbm))
print("  accel.dma_wait %ts")
print("  return")
print("}")
