// Input of eval-order.test: a call whose two arguments build IR (line 3).
void f() {
  auto loop = scf::ForOp::create(b, loc, arith::ConstantIndexOp::create(b, loc, 0),
                                 arith::ConstantIndexOp::create(b, loc, 8), step);
  // ok: one nested
  t = arith::SubIOp::create(b, loc, t, arith::ConstantIndexOp::create(b, loc, lb));
  g("::create(", x.create<Foo>(a));
}
