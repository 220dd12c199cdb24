// An error reachable only deep in the state space. Hand-worked answers:
//   counter c (0..50) and rounds d (0..5). A: c++ while c < 50 (output U).
//   B: when c == 20 and d < 5, d++ and c = 0 (V); otherwise c = 0 (W).
//   error_0: c == 50            -> reachable, shortest witness: 50 times A.
//   error_1: d == 3 && c == 45  -> reachable: three rounds of (20 A, B), then
//                                  45 A: 108 inputs, the shortest.
//   error_2: d == 6             -> d stops at 5: unreachable.
#include <stdio.h>
#include <assert.h>
#include <math.h>
#include <stdlib.h>

    extern void __VERIFIER_error(int);

	int inputs[] = {1,2};

	void errorCheck();
	void calculate_output(int);

	int cf = 1;
	int c = 0;
	int d = 0;

	void errorCheck() {
	    if((c == 50)){
	    cf = 0;
	    __VERIFIER_error(0);
	    }
	    if((d == 3 && c == 45)){
	    cf = 0;
	    __VERIFIER_error(1);
	    }
	    if((d == 6)){
	    cf = 0;
	    __VERIFIER_error(2);
	    }
	}

 void calculate_output(int input) {
        cf = 1;
    if((cf==1 && (input == 1)) && c < 50) {
    	cf = 0;
    	c = c + 1;
    	printf("%d\n", 21); fflush(stdout);
    }
    if((cf==1 && (input == 2)) && (c == 20 && d < 5)) {
    	cf = 0;
    	d = d + 1;
    	c = 0;
    	printf("%d\n", 22); fflush(stdout);
    }
    if((cf==1 && (input == 2))) {
    	cf = 0;
    	c = 0;
    	printf("%d\n", 23); fflush(stdout);
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
        if((input != 1) && (input != 2))
          return -2;
        calculate_output(input);
    }
}
