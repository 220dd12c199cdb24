// Rules that test the array a pointer points to, as the 2019 challenge
// programs do (`35 == a1959613085[2]` with `int *a1959613085`). The
// pointer p is the mode: it points to `one` ({1,2}) or `two` ({3,4}); q
// always points to `cell`, which a step writes. x and z are read only by
// the rules of one mode each, so they matter only there. Hand-worked:
//   start p=one, cell={0,0}, x=y=z=t=0.
//   A (p[0]==1): p = two, cell[1] = 2.   B (p[0]==3): p = one.
//   C (3 == p[0]): x = (x * 3 + 1) % 50, y = x.
//   D (q[1] == 2): t = 1, z = 1 - z.
//   Anything else is invalid. x and y stay in [0, 49]: from 0, x runs
//   1 4 13 40 21 14 43 30 41 24 23 20 11 34 3 10 31 44 33 0.
//   error_0: y == 50              -> unreachable (x % 50 < 50).
//   error_1: p[1] == 4 && y == 13 -> reachable, shortest witness A C C C.
//   error_2: t == 1 && p[0] == 1  -> reachable, shortest witnesses A B D
//                                    and A D B.
//   error_3: q[0] == 1            -> unreachable (no step writes cell[0]).
#include <stdio.h>
#include <assert.h>
#include <math.h>
#include <stdlib.h>

    extern void __VERIFIER_error(int);

	int inputs[] = {1,2,3,4};

	void errorCheck();
	void calculate_output(int);

	int one[] = {1,2};
	int two[] = {3,4};
	int cell[] = {0,0};
	int *p = one;
	int *q = cell;
	int cf = 1;
	int x = 0;
	int y = 0;
	int z = 0;
	int t = 0;

	void errorCheck() {
	    if((y == 50)){
	    cf = 0;
	    __VERIFIER_error(0);
	    }
	    if((p[1] == 4 && y == 13)){
	    cf = 0;
	    __VERIFIER_error(1);
	    }
	    if((t == 1 && p[0] == 1)){
	    cf = 0;
	    __VERIFIER_error(2);
	    }
	    if((q[0] == 1)){
	    cf = 0;
	    __VERIFIER_error(3);
	    }
	}

 void calculate_output(int input) {
        cf = 1;
    if((cf==1 && (input == 1)) && p[0] == 1) {
    	cf = 0;
    	p = two;
    	cell[1] = 2;
    	printf("%d\n", 21); fflush(stdout);
    }
    if((cf==1 && (input == 2)) && p[0] == 3) {
    	cf = 0;
    	p = one;
    	printf("%d\n", 22); fflush(stdout);
    }
    if((cf==1 && (input == 3)) && 3 == p[0]) {
    	cf = 0;
    	x = (x * 3 + 1) % 50;
    	y = x;
    	printf("%d\n", 23); fflush(stdout);
    }
    if((cf==1 && (input == 4)) && q[1] == 2) {
    	cf = 0;
    	t = 1;
    	z = 1 - z;
    	printf("%d\n", 24); fflush(stdout);
    }
    errorCheck();

    if( cf==1 )
    	fprintf(stderr, "Invalid input: %d\n", input);
}

int main()
{
    while(1)
    {
        int input;
        scanf("%d", &input);
        if((input != 1) && (input != 2) && (input != 3) && (input != 4))
          return -2;
        calculate_output(input);
    }
}
