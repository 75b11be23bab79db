#include "textflag.h"

// ZERO_ACC clears the accumulators Y4-Y15; STORE_ACC stores them to
// the 384 bytes at DX (bit moves: the same for float32 and float64).
#define ZERO_ACC \
	VXORPS Y4, Y4, Y4; \
	VXORPS Y5, Y5, Y5; \
	VXORPS Y6, Y6, Y6; \
	VXORPS Y7, Y7, Y7; \
	VXORPS Y8, Y8, Y8; \
	VXORPS Y9, Y9, Y9; \
	VXORPS Y10, Y10, Y10; \
	VXORPS Y11, Y11, Y11; \
	VXORPS Y12, Y12, Y12; \
	VXORPS Y13, Y13, Y13; \
	VXORPS Y14, Y14, Y14; \
	VXORPS Y15, Y15, Y15

// KERNEL_START loads the arguments (k, a, b, c) into CX, SI, DI and DX
// and clears the accumulators.
#define KERNEL_START \
	MOVQ k+0(FP), CX; \
	MOVQ a+8(FP), SI; \
	MOVQ b+16(FP), DI; \
	MOVQ c+24(FP), DX; \
	ZERO_ACC

#define STORE_ACC \
	VMOVUPS Y4, 0(DX); \
	VMOVUPS Y5, 32(DX); \
	VMOVUPS Y6, 64(DX); \
	VMOVUPS Y7, 96(DX); \
	VMOVUPS Y8, 128(DX); \
	VMOVUPS Y9, 160(DX); \
	VMOVUPS Y10, 192(DX); \
	VMOVUPS Y11, 224(DX); \
	VMOVUPS Y12, 256(DX); \
	VMOVUPS Y13, 288(DX); \
	VMOVUPS Y14, 320(DX); \
	VMOVUPS Y15, 352(DX)

// func sgemmKernel6x16(k int, a, b, c *float32)
//
// c[i*16+j] = sum over p < k of a[p*6+i] * b[p*16+j], for i < 6, j < 16:
// a holds k columns of 6 packed rows, b k rows of 16 packed columns. The
// 6x16 block of c is kept in Y4-Y15 (two registers a row) and stored once.
TEXT ·sgemmKernel6x16(SB), NOSPLIT, $0-32
	KERNEL_START
	TESTQ CX, CX
	JE sdone

sloop:
	VMOVUPS (DI), Y0
	VMOVUPS 32(DI), Y1
	VBROADCASTSS (SI), Y2
	VFMADD231PS Y0, Y2, Y4
	VFMADD231PS Y1, Y2, Y5
	VBROADCASTSS 4(SI), Y3
	VFMADD231PS Y0, Y3, Y6
	VFMADD231PS Y1, Y3, Y7
	VBROADCASTSS 8(SI), Y2
	VFMADD231PS Y0, Y2, Y8
	VFMADD231PS Y1, Y2, Y9
	VBROADCASTSS 12(SI), Y3
	VFMADD231PS Y0, Y3, Y10
	VFMADD231PS Y1, Y3, Y11
	VBROADCASTSS 16(SI), Y2
	VFMADD231PS Y0, Y2, Y12
	VFMADD231PS Y1, Y2, Y13
	VBROADCASTSS 20(SI), Y3
	VFMADD231PS Y0, Y3, Y14
	VFMADD231PS Y1, Y3, Y15
	ADDQ $24, SI
	ADDQ $64, DI
	DECQ CX
	JNE sloop

sdone:
	STORE_ACC
	VZEROUPPER
	RET

// func dgemmKernel6x8(k int, a, b, c *float64)
//
// c[i*8+j] = sum over p < k of a[p*6+i] * b[p*8+j], for i < 6, j < 8, as
// sgemmKernel6x16 in float64.
TEXT ·dgemmKernel6x8(SB), NOSPLIT, $0-32
	KERNEL_START
	TESTQ CX, CX
	JE ddone

dloop:
	VMOVUPD (DI), Y0
	VMOVUPD 32(DI), Y1
	VBROADCASTSD (SI), Y2
	VFMADD231PD Y0, Y2, Y4
	VFMADD231PD Y1, Y2, Y5
	VBROADCASTSD 8(SI), Y3
	VFMADD231PD Y0, Y3, Y6
	VFMADD231PD Y1, Y3, Y7
	VBROADCASTSD 16(SI), Y2
	VFMADD231PD Y0, Y2, Y8
	VFMADD231PD Y1, Y2, Y9
	VBROADCASTSD 24(SI), Y3
	VFMADD231PD Y0, Y3, Y10
	VFMADD231PD Y1, Y3, Y11
	VBROADCASTSD 32(SI), Y2
	VFMADD231PD Y0, Y2, Y12
	VFMADD231PD Y1, Y2, Y13
	VBROADCASTSD 40(SI), Y3
	VFMADD231PD Y0, Y3, Y14
	VFMADD231PD Y1, Y3, Y15
	ADDQ $48, SI
	ADDQ $64, DI
	DECQ CX
	JNE dloop

ddone:
	STORE_ACC
	VZEROUPPER
	RET
