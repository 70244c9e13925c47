"""Prints an accel function with N nested scf.for loops (usage: N)."""
import sys

n = int(sys.argv[1])
print("func.func @main() {")
print("  %c0 = arith.constant 0 : index")
print("  %c1 = arith.constant 1 : index")
for i in range(n):
    print(f"scf.for %i{i} = %c0 to %c1 step %c1 {{")
print("}\n" * n + "  return\n}")
