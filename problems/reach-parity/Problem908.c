// Counters that keep their parity: c starts at 1 and only ever moves by
// +2 (A) or -4 (B), each guarded against overflow as in RERS 2017/2019, so
// c is odd in every reachable state (also after a wrap: 2 and 4 divide
// 2^32). Intervals alone lose this: c ranges over all ints, the guard
// c == 10 looks satisfiable and error_0 spuriously reachable, and no
// exhaustive search ends (about 2^31 values of c). Hand-worked answers:
//   start x=1, c=1.  A (x==1): c += 2.  B (x==1): c -= 4.  C (x==1): x=2.
//   D (x==2 && c==10): x=3.  E (x==2 && c==7): x=4.  Anything else is an
//   invalid input.
//   error_0: x==3           -> needs c==10 with c odd: unreachable.
//   error_1: x==4           -> c==7 needs three A (1,3,5,7) then C, E:
//                              reachable, shortest witness A A A C E.
//   error_2: x==2 && c==-3  -> B then C: reachable, shortest witness B C.
#include <stdio.h>
#include <assert.h>
#include <math.h>
#include <stdlib.h>

    extern void __VERIFIER_error(int);

	int inputs[] = {1,2,3,4,5};

	void errorCheck();
	void calculate_output(int);

	int cf = 1;
	int x = 1;
	int c = 1;

	void errorCheck() {
	    if((x == 3)){
	    cf = 0;
	    __VERIFIER_error(0);
	    }
	    if((x == 4)){
	    cf = 0;
	    __VERIFIER_error(1);
	    }
	    if((x == 2 && c == -3)){
	    cf = 0;
	    __VERIFIER_error(2);
	    }
	}

 void calculate_output(int input) {
        cf = 1;
    if((cf==1 && (input == 1)) && x == 1) {
    	cf = 0;
    	c += (c + 20) > c ? 2 : 0;
    	printf("%d\n", 21); fflush(stdout);
    }
    if((cf==1 && (input == 2)) && x == 1) {
    	cf = 0;
    	c -= (c - 20) < c ? 4 : 0;
    	printf("%d\n", 22); fflush(stdout);
    }
    if((cf==1 && (input == 3)) && x == 1) {
    	cf = 0;
    	x = 2;
    	printf("%d\n", 23); fflush(stdout);
    }
    if((cf==1 && (input == 4)) && x == 2 && c == 10) {
    	cf = 0;
    	x = 3;
    	printf("%d\n", 24); fflush(stdout);
    }
    if((cf==1 && (input == 5)) && x == 2 && c == 7) {
    	cf = 0;
    	x = 4;
    	printf("%d\n", 25); fflush(stdout);
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
        if((input != 1) && (input != 2) && (input != 3) && (input != 4) && (input != 5))
          return -2;
        calculate_output(input);
    }
}
